/**
 * Contract: passkeys (StartWebAuthnRegistration, CompleteWebAuthnRegistration, ListWebAuthnCredentials,
 * DeleteWebAuthnCredential, AdminInitiateAuth with USER_AUTH and the WEB_AUTHN and SELECT_CHALLENGE challenges
 * answered by AdminRespondToAuthChallenge) and the pool settings they need (UserPoolTier, SetUserPoolMfaConfig's
 * WebAuthnConfiguration), as the Amazon Cognito user pools API reference describes them, through the AWS SDK against
 * the stand-in. A software passkey (tests/support/software-authenticator.ts) plays the browser's part.
 */
import {
  AdminCreateUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  AdminSetUserPasswordCommand,
  CompleteWebAuthnRegistrationCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DeleteWebAuthnCredentialCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  GetUserPoolMfaConfigCommand,
  ListWebAuthnCredentialsCommand,
  SetUserPoolMfaConfigCommand,
  StartWebAuthnRegistrationCommand,
  UpdateUserPoolCommand,
  type UserPoolTierType,
} from "@aws-sdk/client-cognito-identity-provider";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SoftwarePasskey } from "../support/software-authenticator";
import { expireChallengeSessions } from "../support/stand-ins/stand-in/harness-client";
import { APP_ORIGIN, type ContractStandIn, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("passkeys");
});

afterAll(async () => {
  await cognito?.stop();
});

const RELYING_PARTY = new URL(APP_ORIGIN).hostname;

/**
 * A confirmed member, signed in with a password through the server-only client: their e-mail address and an access
 * token with the self-service scope, which Cognito's passkey operations require.
 */
async function member(label: string): Promise<{ email: string; accessToken: string }> {
  const email = cognito.email(label);
  await cognito.confirmedMember(email);
  return { email, accessToken: (await cognito.serverSignIn(email)).AccessToken! };
}

async function startRegistration(accessToken: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const started = await cognito.cognito.send(new StartWebAuthnRegistrationCommand({ AccessToken: accessToken }));
  return started.CredentialCreationOptions as unknown as PublicKeyCredentialCreationOptionsJSON;
}

const complete = (accessToken: string, credential: unknown) =>
  cognito.cognito.send(
    new CompleteWebAuthnRegistrationCommand({ AccessToken: accessToken, Credential: credential as never }),
  );

/** Registers a new software passkey for the member, as the app's page does with the browser. */
async function registeredPasskey(accessToken: string): Promise<SoftwarePasskey> {
  const passkey = new SoftwarePasskey({ origin: APP_ORIGIN });
  await complete(accessToken, passkey.create(await startRegistration(accessToken)));
  return passkey;
}

const listPasskeys = (accessToken: string, page: { MaxResults?: number; NextToken?: string } = {}) =>
  cognito.cognito.send(new ListWebAuthnCredentialsCommand({ AccessToken: accessToken, ...page }));

const userAuth = (email: string, parameters: Record<string, string> = {}, clientId = cognito.clientId) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: clientId,
      AuthFlow: "USER_AUTH",
      AuthParameters: { USERNAME: email, ...parameters },
    }),
  );

const respond = (ChallengeName: "WEB_AUTHN" | "SELECT_CHALLENGE", Session: string, responses: Record<string, string>) =>
  cognito.cognito.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      ChallengeName,
      Session,
      ChallengeResponses: responses,
    }),
  );

const requestOptions = (parameters: Record<string, string> | undefined): PublicKeyCredentialRequestOptionsJSON =>
  JSON.parse(parameters!.CREDENTIAL_REQUEST_OPTIONS!) as PublicKeyCredentialRequestOptionsJSON;

/** The WEB_AUTHN challenge for a member, asked for directly with PREFERRED_CHALLENGE. */
async function webAuthnChallenge(email: string) {
  const started = await userAuth(email, { PREFERRED_CHALLENGE: "WEB_AUTHN" });
  expect(started.ChallengeName).toBe("WEB_AUTHN");
  return { session: started.Session!, options: requestOptions(started.ChallengeParameters) };
}

const answer = (email: string, session: string, credential: unknown) =>
  respond("WEB_AUTHN", session, { USERNAME: email, CREDENTIAL: JSON.stringify(credential) });

/** A password Cognito's default policy (every character class) accepts, for pools made here. */
const DEFAULT_POLICY_PASSWORD = "Correct-horse-1";

/** A pool of its own with one member signed in, for the pool settings passkeys depend on. */
async function memberOfPool(settings: { tier?: UserPoolTierType; relyingParty?: string }) {
  const pool = await cognito.cognito.send(
    new CreateUserPoolCommand({
      PoolName: `passkeys-${settings.tier ?? "default"}`,
      UsernameAttributes: ["email"],
      ...(settings.tier ? { UserPoolTier: settings.tier } : {}),
    }),
  );
  const UserPoolId = pool.UserPool!.Id!;
  if (settings.relyingParty) {
    await cognito.cognito.send(
      new SetUserPoolMfaConfigCommand({ UserPoolId, WebAuthnConfiguration: { RelyingPartyId: settings.relyingParty } }),
    );
  }
  const client = await cognito.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId,
      ClientName: "web",
      ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_AUTH"],
    }),
  );
  const ClientId = client.UserPoolClient!.ClientId!;
  const email = cognito.email("other-pool");
  await cognito.cognito.send(
    new AdminCreateUserCommand({
      UserPoolId,
      Username: email,
      MessageAction: "SUPPRESS",
      UserAttributes: [{ Name: "email", Value: email }],
    }),
  );
  await cognito.cognito.send(
    new AdminSetUserPasswordCommand({
      UserPoolId,
      Username: email,
      Password: DEFAULT_POLICY_PASSWORD,
      Permanent: true,
    }),
  );
  const signedIn = await cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId,
      ClientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD: DEFAULT_POLICY_PASSWORD },
    }),
  );
  return { UserPoolId, accessToken: signedIn.AuthenticationResult!.AccessToken! };
}

describe("the pool's passkey settings", () => {
  // API_CreateUserPool, UserPoolTier: "Defaults to ESSENTIALS"; the provisioned pool names it and its relying party
  // (API_SetUserPoolMfaConfig, WebAuthnConfiguration {RelyingPartyId, UserVerification}).
  test("the provisioned pool is on the Essentials plan with APP_ORIGIN's host as relying party, verifying users", async () => {
    const { UserPool } = await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: cognito.userPoolId }));
    expect(UserPool?.UserPoolTier).toBe("ESSENTIALS");
    expect(UserPool?.Policies?.SignInPolicy?.AllowedFirstAuthFactors).toEqual(["PASSWORD", "WEB_AUTHN"]);
    const mfa = await cognito.cognito.send(new GetUserPoolMfaConfigCommand({ UserPoolId: cognito.userPoolId }));
    expect(mfa.WebAuthnConfiguration).toEqual({ RelyingPartyId: RELYING_PARTY, UserVerification: "required" });
  });

  test("a pool that names no plan is Essentials; one created on Lite or Plus says so", async () => {
    for (const [tier, expected] of [
      [undefined, "ESSENTIALS"],
      ["LITE", "LITE"],
      ["PLUS", "PLUS"],
    ] as const) {
      const pool = await cognito.cognito.send(
        new CreateUserPoolCommand({ PoolName: `tier-${expected}`, ...(tier ? { UserPoolTier: tier } : {}) }),
      );
      expect(pool.UserPool?.UserPoolTier).toBe(expected);
      const { UserPool } = await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: pool.UserPool!.Id! }));
      expect(UserPool?.UserPoolTier).toBe(expected);
    }
  });

  test("UpdateUserPool changes the plan; an update that names none keeps it", async () => {
    const pool = await cognito.cognito.send(new CreateUserPoolCommand({ PoolName: "tier-update" }));
    const UserPoolId = pool.UserPool!.Id!;
    const tier = async () =>
      (await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId }))).UserPool?.UserPoolTier;
    await cognito.cognito.send(new UpdateUserPoolCommand({ UserPoolId, UserPoolTier: "PLUS" }));
    expect(await tier()).toBe("PLUS");
    await cognito.cognito.send(new UpdateUserPoolCommand({ UserPoolId, MfaConfiguration: "OFF" }));
    expect(await tier()).toBe("PLUS");
  });

  // API_WebAuthnConfigurationType: UserVerification is required or preferred, "preferred" when not set.
  test("SetUserPoolMfaConfig keeps the relying party and user verification; another value is refused", async () => {
    const pool = await cognito.cognito.send(new CreateUserPoolCommand({ PoolName: "relying-party" }));
    const UserPoolId = pool.UserPool!.Id!;
    const set = await cognito.cognito.send(
      new SetUserPoolMfaConfigCommand({ UserPoolId, WebAuthnConfiguration: { RelyingPartyId: "id.example.jp" } }),
    );
    expect(set.WebAuthnConfiguration).toEqual({ RelyingPartyId: "id.example.jp", UserVerification: "preferred" });
    const error = await rejection(
      cognito.cognito.send(
        new SetUserPoolMfaConfigCommand({
          UserPoolId,
          WebAuthnConfiguration: { RelyingPartyId: "id.example.jp", UserVerification: "always" as never },
        }),
      ),
    );
    expect(error.name).toBe("InvalidParameterException");
    const read = await cognito.cognito.send(new GetUserPoolMfaConfigCommand({ UserPoolId }));
    expect(read.WebAuthnConfiguration).toEqual({ RelyingPartyId: "id.example.jp", UserVerification: "preferred" });
  });
});

describe("StartWebAuthnRegistration", () => {
  // API_StartWebAuthnRegistration: CredentialCreationOptions, the WebAuthn PublicKeyCredentialCreationOptionsJSON.
  test("gives creation options for the pool's relying party and the member, asking for a verified passkey", async () => {
    const { email, accessToken } = await member("start");
    const options = await startRegistration(accessToken);
    expect(options).toMatchObject({
      rp: { id: RELYING_PARTY, name: expect.any(String) },
      user: { id: expect.any(String), name: email, displayName: email },
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/),
      excludeCredentials: [],
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
    });
    expect(options.pubKeyCredParams.map((param) => param.alg)).toContain(-7);
    // A new challenge every time.
    expect((await startRegistration(accessToken)).challenge).not.toBe(options.challenge);
  });

  test("excludes the member's existing passkeys, so the same authenticator is not registered twice", async () => {
    const { accessToken } = await member("exclude");
    const passkey = await registeredPasskey(accessToken);
    const options = await startRegistration(accessToken);
    expect(options.excludeCredentials?.map((credential) => credential.id)).toEqual([passkey.id]);
  });

  test("an invalid access token is NotAuthorizedException", async () => {
    const error = await rejection(startRegistration("not-a-token"));
    expect(error.name).toBe("NotAuthorizedException");
  });

  // Errors: WebAuthnNotEnabledException (the feature plan has no passkeys), WebAuthnConfigurationMissingException
  // (no relying party ID configured).
  test("a Lite pool is WebAuthnNotEnabledException; a pool without a relying party WebAuthnConfigurationMissingException", async () => {
    const lite = await memberOfPool({ tier: "LITE", relyingParty: RELYING_PARTY });
    expect((await rejection(startRegistration(lite.accessToken))).name).toBe("WebAuthnNotEnabledException");
    const unconfigured = await memberOfPool({});
    expect((await rejection(startRegistration(unconfigured.accessToken))).name).toBe(
      "WebAuthnConfigurationMissingException",
    );
  });
});

describe("CompleteWebAuthnRegistration", () => {
  test("keeps the passkey: ListWebAuthnCredentials describes it", async () => {
    const { accessToken } = await member("complete");
    const before = Date.now();
    const passkey = await registeredPasskey(accessToken);
    const { Credentials, NextToken } = await listPasskeys(accessToken);
    expect(NextToken).toBeUndefined();
    expect(Credentials).toEqual([
      {
        CredentialId: passkey.id,
        FriendlyCredentialName: expect.any(String),
        RelyingPartyId: RELYING_PARTY,
        AuthenticatorAttachment: "platform",
        AuthenticatorTransports: ["internal", "hybrid"],
        CreatedAt: expect.any(Date),
      },
    ]);
    expect(Credentials![0]!.CreatedAt!.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });

  // Errors: WebAuthnOriginNotAllowedException — the registration origin does not match the relying party.
  test("a credential made on another origin is WebAuthnOriginNotAllowedException and is not kept", async () => {
    const { accessToken } = await member("origin");
    const passkey = new SoftwarePasskey({ origin: APP_ORIGIN });
    for (const origin of ["https://evil.example", "http://127.0.0.1:3000", "http://localhost.evil.example"]) {
      const credential = passkey.create(await startRegistration(accessToken), { origin });
      expect((await rejection(complete(accessToken, credential))).name).toBe("WebAuthnOriginNotAllowedException");
    }
    expect((await listPasskeys(accessToken)).Credentials).toEqual([]);
  });

  // Errors: WebAuthnChallengeNotFoundException — the challenge from StartWebAuthnRegistration was not found or
  // does not match; a completed registration's challenge cannot complete another.
  test("a challenge never started, not the latest, or already used is WebAuthnChallengeNotFoundException", async () => {
    const { accessToken } = await member("challenge");
    const passkey = new SoftwarePasskey({ origin: APP_ORIGIN });
    // Options another member started: this member never started a registration.
    const error = await rejection(complete(accessToken, passkey.create(await startRegistrationOf("fresh"))));
    expect(error.name).toBe("WebAuthnChallengeNotFoundException");

    const earlier = await startRegistration(accessToken);
    const latest = await startRegistration(accessToken);
    expect((await rejection(complete(accessToken, passkey.create(earlier)))).name).toBe(
      "WebAuthnChallengeNotFoundException",
    );
    const credential = passkey.create(latest);
    await complete(accessToken, credential);
    expect((await rejection(complete(accessToken, credential))).name).toBe("WebAuthnChallengeNotFoundException");
    expect((await listPasskeys(accessToken)).Credentials).toHaveLength(1);
  });

  test("a credential for another relying party is WebAuthnRelyingPartyMismatchException", async () => {
    const { accessToken } = await member("rp");
    const passkey = new SoftwarePasskey({ origin: APP_ORIGIN });
    const credential = passkey.create(await startRegistration(accessToken), { rpId: "example.jp" });
    expect((await rejection(complete(accessToken, credential))).name).toBe("WebAuthnRelyingPartyMismatchException");
  });

  test("something that is not a registration response is InvalidParameterException", async () => {
    const { accessToken } = await member("garbage");
    await startRegistration(accessToken);
    expect((await rejection(complete(accessToken, { id: "x" }))).name).toBe("InvalidParameterException");
  });
});

/** Creation options of a throwaway member, for a credential whose challenge the tested member never started. */
async function startRegistrationOf(label: string) {
  return startRegistration((await member(label)).accessToken);
}

describe("ListWebAuthnCredentials and DeleteWebAuthnCredential", () => {
  // API_ListWebAuthnCredentials: MaxResults (0–20) and NextToken page the list.
  test("pages the member's passkeys with MaxResults and NextToken; more than 20 is InvalidParameterException", async () => {
    const { accessToken } = await member("list");
    const passkeys = [
      await registeredPasskey(accessToken),
      await registeredPasskey(accessToken),
      await registeredPasskey(accessToken),
    ];
    const first = await listPasskeys(accessToken, { MaxResults: 2 });
    expect(first.Credentials?.map((item) => item.CredentialId)).toEqual([passkeys[0]!.id, passkeys[1]!.id]);
    expect(first.NextToken).toBeTruthy();
    const second = await listPasskeys(accessToken, { MaxResults: 2, NextToken: first.NextToken });
    expect(second.Credentials?.map((item) => item.CredentialId)).toEqual([passkeys[2]!.id]);
    expect(second.NextToken).toBeUndefined();
    expect((await rejection(listPasskeys(accessToken, { MaxResults: 21 }))).name).toBe("InvalidParameterException");
  });

  test("another member's list does not show them", async () => {
    const owner = await member("owner");
    await registeredPasskey(owner.accessToken);
    const other = await member("other");
    expect((await listPasskeys(other.accessToken)).Credentials).toEqual([]);
  });

  // API_DeleteWebAuthnCredential: ResourceNotFoundException for a credential the user does not have.
  test("deletes one passkey; an unknown or another member's id is ResourceNotFoundException", async () => {
    const { accessToken } = await member("delete");
    const kept = await registeredPasskey(accessToken);
    const removed = await registeredPasskey(accessToken);
    await cognito.cognito.send(
      new DeleteWebAuthnCredentialCommand({ AccessToken: accessToken, CredentialId: removed.id }),
    );
    expect((await listPasskeys(accessToken)).Credentials?.map((item) => item.CredentialId)).toEqual([kept.id]);
    const again = await rejection(
      cognito.cognito.send(new DeleteWebAuthnCredentialCommand({ AccessToken: accessToken, CredentialId: removed.id })),
    );
    expect(again.name).toBe("ResourceNotFoundException");
    const other = await member("delete-other");
    const foreign = await rejection(
      cognito.cognito.send(
        new DeleteWebAuthnCredentialCommand({ AccessToken: other.accessToken, CredentialId: kept.id }),
      ),
    );
    expect(foreign.name).toBe("ResourceNotFoundException");
  });
});

describe("AdminInitiateAuth with USER_AUTH and the WEB_AUTHN challenge", () => {
  // API_AdminInitiateAuth, USER_AUTH with PREFERRED_CHALLENGE; the WEB_AUTHN challenge's CREDENTIAL_REQUEST_OPTIONS
  // (PublicKeyCredentialRequestOptionsJSON), answered with CREDENTIAL (AuthenticationResponseJSON as a string).
  test("a passkey signs the member in: tokens like a password sign-in's, which renew", async () => {
    const { email, accessToken } = await member("sign-in");
    const passkey = await registeredPasskey(accessToken);
    const { session, options } = await webAuthnChallenge(email);
    expect(session.length).toBeGreaterThan(20);
    expect(options).toMatchObject({
      challenge: expect.any(String),
      rpId: RELYING_PARTY,
      userVerification: "required",
      allowCredentials: [{ id: passkey.id, type: "public-key", transports: ["internal", "hybrid"] }],
    });
    const result = await answer(email, session, passkey.get(options));
    const tokens = result.AuthenticationResult!;
    expect(tokens).toMatchObject({ TokenType: "Bearer", ExpiresIn: 3600 });
    expect(tokens.RefreshToken).toBeTruthy();
    expect(decodeJwt(tokens.IdToken!).email).toBe(email);
    const renewed = await cognito.cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: cognito.clientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken! },
      }),
    );
    expect(renewed.AuthenticationResult?.AccessToken).toBeTruthy();
    // And again: the signature counter moves on with every use.
    const next = await webAuthnChallenge(email);
    expect((await answer(email, next.session, passkey.get(next.options))).AuthenticationResult?.IdToken).toBeTruthy();
  });

  // Without PREFERRED_CHALLENGE, "Amazon Cognito responds with the AvailableChallenges parameter"; the answer is
  // SELECT_CHALLENGE with ANSWER.
  test("without a preference the member chooses: SELECT_CHALLENGE lists PASSWORD and WEB_AUTHN", async () => {
    const { email, accessToken } = await member("select");
    const passkey = await registeredPasskey(accessToken);
    const started = await userAuth(email);
    expect(started.ChallengeName).toBe("SELECT_CHALLENGE");
    expect(started.AvailableChallenges).toEqual(["PASSWORD", "WEB_AUTHN"]);
    const chosen = await respond("SELECT_CHALLENGE", started.Session!, { USERNAME: email, ANSWER: "WEB_AUTHN" });
    expect(chosen.ChallengeName).toBe("WEB_AUTHN");
    expect(chosen.Session).not.toBe(started.Session);
    const options = requestOptions(chosen.ChallengeParameters);
    const result = await answer(email, chosen.Session!, passkey.get(options));
    expect(result.AuthenticationResult?.AccessToken).toBeTruthy();
  });

  test("a member without a passkey is offered no WEB_AUTHN, and choosing it is InvalidParameterException", async () => {
    const { email } = await member("no-passkey");
    const started = await userAuth(email, { PREFERRED_CHALLENGE: "WEB_AUTHN" });
    expect(started.ChallengeName).toBe("SELECT_CHALLENGE");
    expect(started.AvailableChallenges).toEqual(["PASSWORD"]);
    const error = await rejection(
      respond("SELECT_CHALLENGE", started.Session!, { USERNAME: email, ANSWER: "WEB_AUTHN" }),
    );
    expect(error.name).toBe("InvalidParameterException");
  });

  test("an app client without ALLOW_USER_AUTH is refused", async () => {
    const { email } = await member("no-user-auth");
    const client = await cognito.cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: "password-only",
        ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      }),
    );
    const error = await rejection(
      userAuth(email, { PREFERRED_CHALLENGE: "WEB_AUTHN" }, client.UserPoolClient!.ClientId),
    );
    expect(error.name).toBe("InvalidParameterException");
    expect(error.message).toBe("Auth flow not enabled for this client");
  });

  // The staff sign-in's passkey step (app/domain/sessions/staff-passkey-sign-in.server.ts) runs USER_AUTH on the
  // staff app client: the client must allow it, and the tokens are that client's own, with its short lifetimes.
  test("the staff client allows USER_AUTH: a passkey answers its WEB_AUTHN challenge with the staff client's tokens", async () => {
    const staffClientId = cognito.pool.staffClientId;
    const described = await cognito.cognito.send(
      new DescribeUserPoolClientCommand({ UserPoolId: cognito.userPoolId, ClientId: staffClientId }),
    );
    expect(described.UserPoolClient?.ExplicitAuthFlows).toContain("ALLOW_USER_AUTH");

    const { email, accessToken } = await member("staff-client");
    const passkey = await registeredPasskey(accessToken);
    const started = await userAuth(email, { PREFERRED_CHALLENGE: "WEB_AUTHN" }, staffClientId);
    expect(started.ChallengeName).toBe("WEB_AUTHN");
    const result = await cognito.cognito.send(
      new AdminRespondToAuthChallengeCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: staffClientId,
        ChallengeName: "WEB_AUTHN",
        Session: started.Session!,
        ChallengeResponses: {
          USERNAME: email,
          CREDENTIAL: JSON.stringify(passkey.get(requestOptions(started.ChallengeParameters))),
        },
      }),
    );
    const tokens = result.AuthenticationResult!;
    expect(tokens.RefreshToken).toBeTruthy();
    const access = decodeJwt(tokens.AccessToken!);
    expect(access.client_id).toBe(staffClientId);
    expect(access.exp! - access.iat!).toBe(5 * 60);
  });

  test("an unknown member is UserNotFoundException (PreventUserExistenceErrors LEGACY)", async () => {
    expect((await rejection(userAuth(cognito.email("nobody")))).name).toBe("UserNotFoundException");
  });

  // AdminRespondToAuthChallenge's errors hold no WebAuthn exception: a refused assertion is NotAuthorizedException.
  test("another passkey, a forged signature, a wrong origin or a deleted passkey is NotAuthorizedException", async () => {
    const { email, accessToken } = await member("refused");
    const passkey = await registeredPasskey(accessToken);
    const stranger = new SoftwarePasskey({ origin: APP_ORIGIN });

    let challenge = await webAuthnChallenge(email);
    const unknown = await rejection(answer(email, challenge.session, stranger.get(challenge.options)));
    expect(unknown.name).toBe("NotAuthorizedException");

    // The stranger's key signs for the member's credential id: the signature does not verify.
    const forged = { ...stranger.get(challenge.options), id: passkey.id, rawId: passkey.id };
    expect((await rejection(answer(email, challenge.session, forged))).name).toBe("NotAuthorizedException");

    const elsewhere = passkey.get(challenge.options, { origin: "https://evil.example" });
    expect((await rejection(answer(email, challenge.session, elsewhere))).name).toBe("NotAuthorizedException");

    // A refused answer leaves the session open for the right one.
    expect((await answer(email, challenge.session, passkey.get(challenge.options))).AuthenticationResult).toBeTruthy();

    challenge = await webAuthnChallenge(email);
    await cognito.cognito.send(
      new DeleteWebAuthnCredentialCommand({ AccessToken: accessToken, CredentialId: passkey.id }),
    );
    const deleted = await rejection(answer(email, challenge.session, passkey.get(challenge.options)));
    expect(deleted.name).toBe("NotAuthorizedException");
  });

  test("an assertion for another challenge is NotAuthorizedException", async () => {
    const { email, accessToken } = await member("other-challenge");
    const passkey = await registeredPasskey(accessToken);
    const first = await webAuthnChallenge(email);
    const second = await webAuthnChallenge(email);
    const error = await rejection(answer(email, second.session, passkey.get(first.options)));
    expect(error.name).toBe("NotAuthorizedException");
  });

  test("a used, unknown, expired or another member's Session is refused as an expired session", async () => {
    const { email, accessToken } = await member("session");
    const passkey = await registeredPasskey(accessToken);
    const expectExpired = async (promise: Promise<unknown>) => {
      const error = await rejection(promise);
      expect(error.name).toBe("NotAuthorizedException");
      expect(error.message).toBe("Invalid session for the user, session is expired.");
    };

    const used = await webAuthnChallenge(email);
    await answer(email, used.session, passkey.get(used.options));
    await expectExpired(answer(email, used.session, passkey.get(used.options)));

    await expectExpired(answer(email, "bm90LWEtc2Vzc2lvbg".repeat(20), passkey.get(used.options)));

    const other = await member("session-other");
    const othersPasskey = await registeredPasskey(other.accessToken);
    const theirs = await webAuthnChallenge(other.email);
    await expectExpired(answer(email, theirs.session, passkey.get(theirs.options)));
    // The refusal did not use it up: its owner can still answer.
    expect(
      (await answer(other.email, theirs.session, othersPasskey.get(theirs.options))).AuthenticationResult,
    ).toBeTruthy();

    const expiring = await webAuthnChallenge(email);
    await expireChallengeSessions(cognito.endpoint);
    await expectExpired(answer(email, expiring.session, passkey.get(expiring.options)));

    // A SELECT_CHALLENGE session does not answer WEB_AUTHN.
    const selecting = await userAuth(email);
    await expectExpired(answer(email, selecting.Session!, passkey.get(expiring.options)));
  });
});
