/**
 * Contract: TOTP multi-factor authentication (a "software token") as the Amazon Cognito user pools API reference
 * and developer guide ("TOTP software token MFA") describe it, through the AWS SDK against the stand-in:
 * AssociateSoftwareToken, VerifySoftwareToken, SetUserMFAPreference, AdminSetUserMFAPreference,
 * AdminDeleteSoftwareToken, GetUser/AdminGetUser's MFA settings, and the SOFTWARE_TOKEN_MFA challenge of a password
 * sign-in answered with AdminRespondToAuthChallenge (and RespondToAuthChallenge). Codes are RFC 6238 (SHA-1, 6 digits,
 * 30 s), computed from the secret as an authenticator app would (support/totp-codes.ts).
 */
import {
  AdminDeleteSoftwareTokenCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  AdminSetUserMFAPreferenceCommand,
  AssociateSoftwareTokenCommand,
  GetUserCommand,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
  SetUserMFAPreferenceCommand,
  SetUserPoolMfaConfigCommand,
  VerifySoftwareTokenCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expireChallengeSessions } from "../support/stand-ins/stand-in/harness-client";
import { totpCode, wrongTotpCode } from "../support/totp-codes";
import { type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

/** The pool as TOTP needs it: MFA optional, software tokens turned on (SetUserPoolMfaConfig). */
const poolMfa = (mfa: "OFF" | "OPTIONAL", softwareToken = true) =>
  cognito.cognito.send(
    new SetUserPoolMfaConfigCommand({
      UserPoolId: cognito.userPoolId,
      MfaConfiguration: mfa,
      SoftwareTokenMfaConfiguration: { Enabled: softwareToken },
    }),
  );

beforeAll(async () => {
  cognito = await startContractStandIn("software-token-mfa");
  await poolMfa("OPTIONAL");
});

afterAll(async () => {
  await cognito?.stop();
});

const adminAuth = (email: string) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD },
    }),
  );

const answer = (username: string, session: string | undefined, code: string) =>
  cognito.cognito.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      ChallengeName: "SOFTWARE_TOKEN_MFA",
      ChallengeResponses: { USERNAME: username, SOFTWARE_TOKEN_MFA_CODE: code },
      Session: session,
    }),
  );

const adminGetUser = (email: string) =>
  cognito.cognito.send(new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));

const associate = async (accessToken: string) =>
  (await cognito.cognito.send(new AssociateSoftwareTokenCommand({ AccessToken: accessToken }))).SecretCode!;

const verify = (accessToken: string, code: string, name?: string) =>
  cognito.cognito.send(
    new VerifySoftwareTokenCommand({ AccessToken: accessToken, UserCode: code, FriendlyDeviceName: name }),
  );

const setPreference = (accessToken: string, enabled: boolean) =>
  cognito.cognito.send(
    new SetUserMFAPreferenceCommand({
      AccessToken: accessToken,
      SoftwareTokenMfaSettings: { Enabled: enabled, PreferredMfa: enabled },
    }),
  );

/**
 * A confirmed member with a verified authenticator and TOTP turned on and preferred. `usedCode` verified it (its
 * time step is used); `nextCode` is the next step's, which the stand-in accepts until a minute after verification.
 */
async function memberWithTotp(label: string, deviceName = "Phone") {
  const email = cognito.email(label);
  await cognito.confirmedMember(email);
  const tokens = await cognito.serverSignIn(email);
  const secret = await associate(tokens.AccessToken!);
  const verifiedAt = Date.now();
  await verify(tokens.AccessToken!, totpCode(secret, { from: verifiedAt }), deviceName);
  await setPreference(tokens.AccessToken!, true);
  const username = (await adminGetUser(email)).Username!;
  return {
    email,
    secret,
    username,
    accessToken: tokens.AccessToken!,
    usedCode: totpCode(secret, { from: verifiedAt }),
    nextCode: totpCode(secret, { steps: 1, from: verifiedAt }),
  };
}

describe("enrolment: AssociateSoftwareToken, VerifySoftwareToken, SetUserMFAPreference", () => {
  // API_AssociateSoftwareToken: a unique shared secret (base32) for the TOTP app. API_VerifySoftwareToken: a code
  // computed from it marks the token verified (Status SUCCESS). Developer guide: "Next, you can enable TOTP MFA for
  // your user" (SetUserMFAPreference); GetUser and AdminGetUser then report UserMFASettingList and
  // PreferredMfaSetting.
  test("a verified token turned on and preferred shows in GetUser and AdminGetUser", async () => {
    const email = cognito.email("enrol");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    const secret = await associate(AccessToken!);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await associate(AccessToken!)).not.toBe(secret);
    const latest = await associate(AccessToken!);

    expect((await verify(AccessToken!, totpCode(latest), "Work phone")).Status).toBe("SUCCESS");
    const verified = await adminGetUser(email);
    expect(verified.UserMFASettingList).toBeUndefined();
    expect(verified.PreferredMfaSetting).toBeUndefined();

    await setPreference(AccessToken!, true);
    const admin = await adminGetUser(email);
    expect(admin.UserMFASettingList).toEqual(["SOFTWARE_TOKEN_MFA"]);
    expect(admin.PreferredMfaSetting).toBe("SOFTWARE_TOKEN_MFA");
    const own = await cognito.cognito.send(new GetUserCommand({ AccessToken }));
    expect(own.UserMFASettingList).toEqual(["SOFTWARE_TOKEN_MFA"]);
    expect(own.PreferredMfaSetting).toBe("SOFTWARE_TOKEN_MFA");
  });

  // API_VerifySoftwareToken errors: EnableSoftwareTokenMFAException, "a code mismatch and the service fails to
  // configure the software token"; the right code still verifies it afterwards.
  test("a wrong code gives EnableSoftwareTokenMFAException", async () => {
    const email = cognito.email("enrol-wrong");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    const secret = await associate(AccessToken!);
    const error = await rejection(verify(AccessToken!, wrongTotpCode(secret)));
    expect(error.name).toBe("EnableSoftwareTokenMFAException");
    expect((await verify(AccessToken!, totpCode(secret))).Status).toBe("SUCCESS");
  });

  // Nothing associated: there is no software token to verify (SoftwareTokenMFANotFoundException).
  test("verifying without AssociateSoftwareToken gives SoftwareTokenMFANotFoundException", async () => {
    const email = cognito.email("enrol-none");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    expect((await rejection(verify(AccessToken!, "123456"))).name).toBe("SoftwareTokenMFANotFoundException");
  });

  // API_AssociateSoftwareToken / API_VerifySoftwareToken errors: NotAuthorizedException for an access token Cognito
  // did not issue.
  test("a forged access token gives NotAuthorizedException", async () => {
    const email = cognito.email("enrol-forged");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    const [header, payload] = AccessToken!.split(".");
    const forged = `${header}.${payload}.${Buffer.from("not the signature").toString("base64url")}`;
    expect((await rejection(associate(forged))).name).toBe("NotAuthorizedException");
    expect((await rejection(verify(forged, "123456"))).name).toBe("NotAuthorizedException");
  });

  // Developer guide, "TOTP software token MFA": in a pool without TOTP turned on, users "receive a
  // SoftwareTokenMFANotFoundException exception with the description Software Token MFA has not been enabled by the
  // userPool."
  test("a pool without software tokens gives SoftwareTokenMFANotFoundException", async () => {
    const email = cognito.email("pool-off");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    await poolMfa("OPTIONAL", false);
    try {
      const error = await rejection(associate(AccessToken!));
      expect(error.name).toBe("SoftwareTokenMFANotFoundException");
      expect(error.message).toBe("Software Token MFA has not been enabled by the userPool.");
    } finally {
      await poolMfa("OPTIONAL");
    }
  });

  // API_SetUserMFAPreference / API_AdminSetUserMFAPreference: TOTP can be turned on only with a verified token
  // (InvalidParameterException); the admin variant answers UserNotFoundException for an unknown user.
  test("turning TOTP on without a verified token gives InvalidParameterException", async () => {
    const email = cognito.email("prefer-unverified");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    await associate(AccessToken!);
    const own = await rejection(setPreference(AccessToken!, true));
    expect(own.name).toBe("InvalidParameterException");
    expect(own.message).toBe("User has not set up software token mfa");
    const admin = await rejection(
      cognito.cognito.send(
        new AdminSetUserMFAPreferenceCommand({
          UserPoolId: cognito.userPoolId,
          Username: email,
          SoftwareTokenMfaSettings: { Enabled: true },
        }),
      ),
    );
    expect(admin.name).toBe("InvalidParameterException");
    const unknown = await rejection(
      cognito.cognito.send(
        new AdminSetUserMFAPreferenceCommand({
          UserPoolId: cognito.userPoolId,
          Username: cognito.email("nobody"),
          SoftwareTokenMfaSettings: { Enabled: false },
        }),
      ),
    );
    expect(unknown.name).toBe("UserNotFoundException");
  });
});

describe("the SOFTWARE_TOKEN_MFA challenge", () => {
  // API_AdminInitiateAuth: with TOTP on, the password gets a challenge, not tokens: ChallengeName
  // SOFTWARE_TOKEN_MFA, a Session, and ChallengeParameters USER_ID_FOR_SRP (the user name) and FRIENDLY_DEVICE_NAME
  // (AWS re:Post "configure TOTP MFA", admin-initiate-auth output). API_AdminRespondToAuthChallenge with USERNAME and
  // SOFTWARE_TOKEN_MFA_CODE returns the AuthenticationResult a password sign-in returns.
  test("the password gets a challenge; the next code gets the tokens", async () => {
    const { email, nextCode, username } = await memberWithTotp("challenge", "Work phone");
    const challenge = await adminAuth(email);
    expect(challenge.ChallengeName).toBe("SOFTWARE_TOKEN_MFA");
    expect(challenge.AuthenticationResult).toBeUndefined();
    expect(challenge.Session!.length).toBeGreaterThanOrEqual(20);
    expect(challenge.ChallengeParameters).toEqual({ USER_ID_FOR_SRP: username, FRIENDLY_DEVICE_NAME: "Work phone" });

    const result = await answer(email, challenge.Session, nextCode);
    const tokens = result.AuthenticationResult!;
    expect(tokens.TokenType).toBe("Bearer");
    expect(tokens.ExpiresIn).toBe(3600);
    expect(tokens.IdToken).toBeTruthy();
    expect(decodeJwt(tokens.IdToken!)).toMatchObject({ email, token_use: "id" });
    expect(decodeJwt(tokens.AccessToken!)).toMatchObject({ username, origin_jti: expect.any(String) });
    const refreshed = await cognito.cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: cognito.clientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken! },
      }),
    );
    expect(refreshed.AuthenticationResult?.AccessToken).toBeTruthy();
  });

  // API_AdminRespondToAuthChallenge errors: CodeMismatchException. The stand-in lets the same Session try again, as
  // it does after a refused new password; the reference says nothing of a limit on tries per Session.
  test("a wrong code gives CodeMismatchException; the right one then works", async () => {
    const { email, secret, nextCode } = await memberWithTotp("challenge-wrong");
    const challenge = await adminAuth(email);
    const error = await rejection(answer(email, challenge.Session, wrongTotpCode(secret)));
    expect(error.name).toBe("CodeMismatchException");
    expect(error.message).toBe("Invalid code received for user");
    await expect(answer(email, challenge.Session, nextCode)).resolves.toHaveProperty("AuthenticationResult");
  });

  // RFC 6238 §5.2: a code is accepted once. Cognito refuses a code of a time step already used (by the sign-in or by
  // VerifySoftwareToken) with ExpiredCodeException "Your software token has already been used once.".
  test("a code of a time step already used gives ExpiredCodeException", async () => {
    const { email, usedCode, nextCode } = await memberWithTotp("reuse");
    const challenge = await adminAuth(email);
    const usedAtVerification = await rejection(answer(email, challenge.Session, usedCode));
    expect(usedAtVerification.name).toBe("ExpiredCodeException");
    expect(usedAtVerification.message).toBe("Your software token has already been used once.");

    await answer(email, challenge.Session, nextCode);
    const again = await adminAuth(email);
    expect((await rejection(answer(email, again.Session, nextCode))).name).toBe("ExpiredCodeException");
  });

  // API_AdminRespondToAuthChallenge: the Session must be the one Cognito returned for this user, and it lasts
  // AuthSessionValidity (3 minutes by default) and one answer: otherwise NotAuthorizedException.
  test("an unknown, used, expired or another user's Session gives NotAuthorizedException", async () => {
    const { email, nextCode } = await memberWithTotp("session");
    const other = await memberWithTotp("session-other");
    const sessionError = async (session: string | undefined) => {
      const error = await rejection(answer(email, session, nextCode));
      expect(error.name).toBe("NotAuthorizedException");
      expect(error.message).toBe("Invalid session for the user, session is expired.");
    };
    await sessionError("x".repeat(64));
    await sessionError((await adminAuth(other.email)).Session);

    const used = await adminAuth(email);
    await answer(email, used.Session, nextCode);
    await sessionError(used.Session);

    const expired = await adminAuth(email);
    await expireChallengeSessions(cognito.endpoint);
    await sessionError(expired.Session);
  });

  // API_SetUserMFAPreference, Enabled false: the user signs in with the password alone; AdminSetUserMFAPreference
  // turns it on again.
  test("TOTP turned off signs in with the password alone; turned on again, challenges again", async () => {
    const { email, accessToken } = await memberWithTotp("toggle");
    await setPreference(accessToken, false);
    expect((await adminGetUser(email)).UserMFASettingList).toBeUndefined();
    expect((await adminAuth(email)).AuthenticationResult?.AccessToken).toBeTruthy();
    await cognito.cognito.send(
      new AdminSetUserMFAPreferenceCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        SoftwareTokenMfaSettings: { Enabled: true, PreferredMfa: true },
      }),
    );
    expect((await adminAuth(email)).ChallengeName).toBe("SOFTWARE_TOKEN_MFA");
  });

  // API_AssociateSoftwareToken: "Amazon Cognito disassociates an existing software token when you verify the new
  // token": until then the old authenticator still answers the challenge.
  test("a new secret replaces the authenticator only once it is verified", async () => {
    const { email, nextCode, accessToken } = await memberWithTotp("replace");
    const next = await associate(accessToken);
    const challenge = await adminAuth(email);
    expect((await rejection(answer(email, challenge.Session, totpCode(next, { steps: 1 })))).name).toBe(
      "CodeMismatchException",
    );
    await expect(answer(email, challenge.Session, nextCode)).resolves.toHaveProperty("AuthenticationResult");
  });

  // MfaConfiguration OFF: the pool challenges no one for MFA.
  test("a pool with MFA off gives the tokens without a challenge", async () => {
    const { email } = await memberWithTotp("pool-mfa-off");
    await poolMfa("OFF");
    try {
      expect((await adminAuth(email)).AuthenticationResult?.AccessToken).toBeTruthy();
    } finally {
      await poolMfa("OPTIONAL");
    }
  });

  // API_InitiateAuth / API_RespondToAuthChallenge: the same challenge on the client-side flow.
  test("InitiateAuth with USER_PASSWORD_AUTH gets the same challenge, RespondToAuthChallenge the tokens", async () => {
    const { email, usedCode, nextCode, username } = await memberWithTotp("client-side");
    const challenge = await cognito.cognito.send(
      new InitiateAuthCommand({
        ClientId: cognito.clientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD },
      }),
    );
    expect(challenge.ChallengeName).toBe("SOFTWARE_TOKEN_MFA");
    expect(challenge.ChallengeParameters?.USER_ID_FOR_SRP).toBe(username);
    const respond = (code: string) =>
      cognito.cognito.send(
        new RespondToAuthChallengeCommand({
          ClientId: cognito.clientId,
          ChallengeName: "SOFTWARE_TOKEN_MFA",
          ChallengeResponses: { USERNAME: username, SOFTWARE_TOKEN_MFA_CODE: code },
          Session: challenge.Session,
        }),
      );
    expect((await rejection(respond(usedCode))).name).toBe("ExpiredCodeException");
    expect((await respond(nextCode)).AuthenticationResult?.RefreshToken).toBeTruthy();
  });

  // The authenticator and its last used step are kept with the user, as the rest of the user is.
  test("the authenticator and its used codes survive a restart of the stand-in", async () => {
    const { email, usedCode, nextCode } = await memberWithTotp("restart");
    await cognito.restart();
    const challenge = await adminAuth(email);
    expect(challenge.ChallengeName).toBe("SOFTWARE_TOKEN_MFA");
    expect((await rejection(answer(email, challenge.Session, usedCode))).name).toBe("ExpiredCodeException");
    await expect(answer(email, challenge.Session, nextCode)).resolves.toHaveProperty("AuthenticationResult");
  });
});

describe("AdminDeleteSoftwareToken", () => {
  // API_AdminDeleteSoftwareToken: "After this operation, the user can no longer sign in with TOTP MFA, and can
  // register a new TOTP factor with AssociateSoftwareToken."
  test("the user signs in with the password alone and can set up a new authenticator", async () => {
    const { email, accessToken } = await memberWithTotp("delete");
    await cognito.cognito.send(
      new AdminDeleteSoftwareTokenCommand({ UserPoolId: cognito.userPoolId, Username: email }),
    );
    const user = await adminGetUser(email);
    expect(user.UserMFASettingList).toBeUndefined();
    expect(user.PreferredMfaSetting).toBeUndefined();
    expect((await adminAuth(email)).AuthenticationResult?.AccessToken).toBeTruthy();
    expect((await rejection(setPreference(accessToken, true))).name).toBe("InvalidParameterException");

    const secret = await associate(accessToken);
    expect((await verify(accessToken, totpCode(secret))).Status).toBe("SUCCESS");
    await setPreference(accessToken, true);
    expect((await adminAuth(email)).ChallengeName).toBe("SOFTWARE_TOKEN_MFA");
  });

  // API_AdminDeleteSoftwareToken errors: UserNotFoundException.
  test("an unknown user gives UserNotFoundException", async () => {
    const error = await rejection(
      cognito.cognito.send(
        new AdminDeleteSoftwareTokenCommand({ UserPoolId: cognito.userPoolId, Username: cognito.email("nobody") }),
      ),
    );
    expect(error.name).toBe("UserNotFoundException");
  });
});
