/**
 * Passkeys as Cognito offers them and cognito-local does not: the pool's feature plan (UserPoolTier) and relying party
 * (SetUserPoolMfaConfig's WebAuthnConfiguration), registration (StartWebAuthnRegistration,
 * CompleteWebAuthnRegistration), the user's list (ListWebAuthnCredentials, DeleteWebAuthnCredential) and sign-in with
 * the USER_AUTH flow's WEB_AUTHN challenge. Attestations and assertions are checked by @simplewebauthn/server, never
 * by our own cryptography. Never part of production.
 */
import {
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeClientDataJSON, isoBase64URL } from "@simplewebauthn/server/helpers";
import type { LocalAppClient, LocalUser, LocalUserPool, LocalUserPoolOptions } from "./cognito-local";
import { CognitoFault, fault } from "./errors";
import { ChallengeSessions, DEFAULT_AUTH_SESSION_VALIDITY_MINUTES } from "./invitations";

/** API_CreateUserPool: UserPoolTier "Defaults to ESSENTIALS"; passkeys need Essentials or Plus. */
export const DEFAULT_USER_POOL_TIER = "ESSENTIALS";
/** API_WebAuthnConfigurationType: UserVerification defaults to preferred. */
const DEFAULT_USER_VERIFICATION = "preferred";
/** API_ListWebAuthnCredentials: MaxResults is 0 to 20. */
const MAX_LIST_RESULTS = 20;
/** How long a ceremony's options ask the browser to wait, and how long the stand-in keeps a registration challenge. */
const CEREMONY_TIMEOUT_MS = 5 * 60_000;
/** ES256 and RS256, the algorithms passkey providers offer. */
const SUPPORTED_ALGORITHMS = [-7, -257];

/** One passkey as the harness keeps it on the user record (HarnessPasskeys). */
export interface StoredPasskey {
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports: string[];
  attachment?: string;
  relyingPartyId: string;
  friendlyName: string;
  createdAt: string;
}

export interface WebAuthnSettings {
  RelyingPartyId?: string;
  UserVerification: "required" | "preferred";
}

type Body = Record<string, unknown>;

const text = (value: unknown) => (typeof value === "string" && value ? value : undefined);

export const passkeysOf = (user: LocalUser): StoredPasskey[] =>
  Array.isArray(user.HarnessPasskeys) ? (user.HarnessPasskeys as StoredPasskey[]) : [];

export function userPoolTier(pool: Record<string, unknown>): string {
  return text(pool.UserPoolTier) ?? DEFAULT_USER_POOL_TIER;
}

export function webAuthnSettings(pool: LocalUserPoolOptions): WebAuthnSettings {
  const stored = (pool.WebAuthnConfiguration ?? {}) as Body;
  return {
    ...(text(stored.RelyingPartyId) ? { RelyingPartyId: stored.RelyingPartyId as string } : {}),
    UserVerification: stored.UserVerification === "required" ? "required" : DEFAULT_USER_VERIFICATION,
  };
}

/** SetUserPoolMfaConfig's WebAuthnConfiguration, checked as Cognito checks it, merged over the pool's current one. */
export function mergedWebAuthnSettings(pool: LocalUserPoolOptions, requested: unknown): WebAuthnSettings {
  const current = webAuthnSettings(pool);
  if (!requested || typeof requested !== "object") return current;
  const { RelyingPartyId, UserVerification } = requested as Body;
  if (UserVerification !== undefined && UserVerification !== "required" && UserVerification !== "preferred") {
    throw fault.invalidParameter(
      `1 validation error detected: Value '${String(UserVerification)}' at 'webAuthnConfiguration.userVerification' ` +
        "failed to satisfy constraint: Member must satisfy enum value set: [required, preferred]",
    );
  }
  return {
    ...(text(RelyingPartyId) ? { RelyingPartyId: RelyingPartyId as string } : {}),
    UserVerification:
      (UserVerification as WebAuthnSettings["UserVerification"] | undefined) ?? current.UserVerification,
  };
}

/** Passkeys need the Essentials or Plus plan and a relying party: Cognito's two refusals, in its order. */
function relyingPartyOf(pool: LocalUserPoolOptions): { rpId: string; settings: WebAuthnSettings } {
  if (userPoolTier(pool) === "LITE") {
    throw new CognitoFault("WebAuthnNotEnabledException", "Passkeys are not available on the Lite feature plan.");
  }
  const settings = webAuthnSettings(pool);
  if (!settings.RelyingPartyId) {
    throw new CognitoFault(
      "WebAuthnConfigurationMissingException",
      "The user pool has no relying party ID configured.",
    );
  }
  return { rpId: settings.RelyingPartyId, settings };
}

/**
 * The origin a ceremony ran on, if the relying party accepts it: the relying party's host or one under it, over https
 * (http only for localhost, which browsers treat as a secure context). Anything else is refused as Cognito refuses it.
 */
function allowedOrigin(clientDataJSON: unknown, rpId: string): string {
  let origin: string;
  try {
    origin = decodeClientDataJSON(String(clientDataJSON)).origin;
  } catch {
    throw fault.invalidParameter("The credential's clientDataJSON cannot be read.");
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw originNotAllowed(origin);
  }
  const host = url.hostname;
  const underRelyingParty = host === rpId || host.endsWith(`.${rpId}`);
  const secure = url.protocol === "https:" || (url.protocol === "http:" && host === "localhost");
  if (!underRelyingParty || !secure) throw originNotAllowed(origin);
  return origin;
}

const originNotAllowed = (origin: string) =>
  new CognitoFault("WebAuthnOriginNotAllowedException", `The origin ${origin} is not allowed for this relying party.`);

const signInFailed = () => new CognitoFault("NotAuthorizedException", "Incorrect passkey credential.");

function parsedCredential<T>(value: unknown): T {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
  }
  const credential = parsed as { id?: unknown; response?: unknown } | undefined;
  if (!credential || typeof credential.id !== "string" || !credential.response) {
    throw fault.invalidParameter("Credential is not a valid public key credential.");
  }
  return parsed as T;
}

/** WebAuthn's user handle for a Cognito user: the user's sub (the username in a pool that signs in by e-mail). */
function userHandle(user: LocalUser): Uint8Array<ArrayBuffer> {
  const sub = user.Attributes.find((item) => item.Name === "sub")?.Value ?? user.Username;
  return new TextEncoder().encode(sub);
}

interface RegistrationChallenge {
  challenge: string;
  clientId: string;
  expiresAt: number;
}

interface SignInStep {
  challengeName: "SELECT_CHALLENGE" | "WEB_AUTHN";
  /** The WebAuthn challenge of a WEB_AUTHN step, base64url. */
  challenge?: string;
  expiresAt: number;
}

export interface PasskeyHooks {
  now(): Date;
  save(pool: LocalUserPool, user: LocalUser): Promise<void>;
  /** The tokens of a completed sign-in, as the harness issues them for every flow. */
  issueTokens(pool: LocalUserPool, client: LocalAppClient, user: LocalUser): Promise<Body>;
}

export function createPasskeys(hooks: PasskeyHooks) {
  const registrations = new Map<string, RegistrationChallenge>();
  const sessions = new ChallengeSessions();
  const steps = new Map<string, SignInStep>();
  const key = (pool: LocalUserPool, user: LocalUser) => `${pool.options.Id}/${user.Username}`;

  function describe(passkey: StoredPasskey) {
    return {
      CredentialId: passkey.credentialId,
      FriendlyCredentialName: passkey.friendlyName,
      RelyingPartyId: passkey.relyingPartyId,
      ...(passkey.attachment ? { AuthenticatorAttachment: passkey.attachment } : {}),
      AuthenticatorTransports: passkey.transports,
      CreatedAt: new Date(passkey.createdAt),
    };
  }

  function issueSession(
    pool: LocalUserPool,
    client: LocalAppClient,
    user: LocalUser,
    step: Omit<SignInStep, "expiresAt">,
  ): string {
    const minutes = client.AuthSessionValidity ?? DEFAULT_AUTH_SESSION_VALIDITY_MINUTES;
    const now = Date.now();
    const session = sessions.issue(
      { userPoolId: pool.options.Id, clientId: client.ClientId, username: user.Username },
      minutes,
      now,
    );
    for (const [known, held] of steps) if (held.expiresAt <= now) steps.delete(known);
    steps.set(session, { ...step, expiresAt: now + minutes * 60_000 });
    return session;
  }

  /** The first factors the pool allows (Policies.SignInPolicy, Cognito's default PASSWORD) that this user has. */
  function availableChallenges(pool: LocalUserPool, user: LocalUser): string[] {
    const policy = (pool.options.Policies as { SignInPolicy?: { AllowedFirstAuthFactors?: string[] } } | undefined)
      ?.SignInPolicy;
    const allowed = policy?.AllowedFirstAuthFactors ?? ["PASSWORD"];
    const available: string[] = [];
    if (allowed.includes("PASSWORD") && user.Password) available.push("PASSWORD");
    if (allowed.includes("WEB_AUTHN") && userPoolTier(pool.options) !== "LITE" && passkeysOf(user).length) {
      available.push("WEB_AUTHN");
    }
    return available;
  }

  async function webAuthnChallenge(pool: LocalUserPool, client: LocalAppClient, user: LocalUser) {
    const { rpId, settings } = relyingPartyOf(pool.options);
    const options = await generateAuthenticationOptions({
      rpID: rpId,
      allowCredentials: passkeysOf(user).map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports,
      })),
      userVerification: settings.UserVerification,
      timeout: CEREMONY_TIMEOUT_MS,
    });
    return {
      ChallengeName: "WEB_AUTHN",
      ChallengeParameters: { CREDENTIAL_REQUEST_OPTIONS: JSON.stringify(options) },
      Session: issueSession(pool, client, user, { challengeName: "WEB_AUTHN", challenge: options.challenge }),
    };
  }

  function selectChallenge(pool: LocalUserPool, client: LocalAppClient, user: LocalUser) {
    return {
      ChallengeName: "SELECT_CHALLENGE",
      ChallengeParameters: {},
      AvailableChallenges: availableChallenges(pool, user),
      Session: issueSession(pool, client, user, { challengeName: "SELECT_CHALLENGE" }),
    };
  }

  /** The step a Session belongs to, if it is current and was issued to this user and client. */
  function stepOf(session: unknown, pool: LocalUserPool, client: LocalAppClient, user: LocalUser | null) {
    const binding = user
      ? sessions.find(session, { userPoolId: pool.options.Id, clientId: client.ClientId, username: user.Username })
      : null;
    const step = binding ? steps.get(session as string) : undefined;
    if (!user || !step) throw fault.challengeSessionExpired();
    return step;
  }

  function useUp(session: string) {
    sessions.useUp(session);
    steps.delete(session);
  }

  async function verifiedSignIn(
    pool: LocalUserPool,
    client: LocalAppClient,
    user: LocalUser,
    challenge: string,
    credentialValue: unknown,
  ): Promise<Body> {
    const { rpId, settings } = relyingPartyOf(pool.options);
    const credential = parsedCredential<AuthenticationResponseJSON>(credentialValue);
    const passkey = passkeysOf(user).find((item) => item.credentialId === credential.id);
    if (!passkey) throw signInFailed();
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      // Every refusal is NotAuthorizedException here: the WebAuthn errors are not among the challenge's errors.
      const origin = allowedOrigin(credential.response.clientDataJSON, rpId);
      verification = await verifyAuthenticationResponse({
        response: credential,
        expectedChallenge: challenge,
        expectedOrigin: origin,
        expectedRPID: rpId,
        credential: {
          id: passkey.credentialId,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports,
        },
        requireUserVerification: settings.UserVerification === "required",
      });
    } catch {
      throw signInFailed();
    }
    if (!verification.verified) throw signInFailed();
    // The new signature counter makes an authenticator's cloned key show itself (WebAuthn §6.1.1).
    const used: StoredPasskey = { ...passkey, counter: verification.authenticationInfo.newCounter };
    const updated: LocalUser = {
      ...user,
      HarnessPasskeys: passkeysOf(user).map((item) => (item.credentialId === used.credentialId ? used : item)),
    };
    await hooks.save(pool, updated);
    return { ChallengeParameters: {}, AuthenticationResult: await hooks.issueTokens(pool, client, updated) };
  }

  return {
    /**
     * AdminInitiateAuth with USER_AUTH: the preferred WEB_AUTHN challenge when the user has a passkey, otherwise the
     * choice of what the user can answer (SELECT_CHALLENGE with AvailableChallenges).
     */
    async initiate(pool: LocalUserPool, client: LocalAppClient, user: LocalUser, parameters: Body): Promise<Body> {
      const preferred = text(parameters.PREFERRED_CHALLENGE);
      if (preferred === "WEB_AUTHN" && availableChallenges(pool, user).includes("WEB_AUTHN")) {
        return webAuthnChallenge(pool, client, user);
      }
      if (preferred && preferred !== "WEB_AUTHN") {
        throw new CognitoFault("StandInUnsupportedException", `PREFERRED_CHALLENGE ${preferred}`);
      }
      return selectChallenge(pool, client, user);
    },

    /** AdminRespondToAuthChallenge for SELECT_CHALLENGE (answered WEB_AUTHN) and WEB_AUTHN. */
    async respond(pool: LocalUserPool, client: LocalAppClient, user: LocalUser | null, body: Body): Promise<Body> {
      const responses = (body.ChallengeResponses ?? {}) as Body;
      if (!text(body.Session)) throw fault.invalidParameter("Missing required parameter Session");
      const session = body.Session as string;
      const step = stepOf(session, pool, client, user);
      const member = user as LocalUser;
      if (step.challengeName !== body.ChallengeName) throw fault.challengeSessionExpired();
      if (!member.Enabled) throw fault.userDisabled();
      if (step.challengeName === "SELECT_CHALLENGE") {
        const answer = text(responses.ANSWER);
        if (!answer) throw fault.invalidParameter("Missing required parameter ANSWER");
        if (!availableChallenges(pool, member).includes(answer)) {
          throw fault.invalidParameter(`${answer} is not an available challenge for this user.`);
        }
        if (answer !== "WEB_AUTHN") throw new CognitoFault("StandInUnsupportedException", `ANSWER ${answer}`);
        useUp(session);
        return webAuthnChallenge(pool, client, member);
      }
      if (!responses.CREDENTIAL) throw fault.invalidParameter("Missing required parameter CREDENTIAL");
      const result = await verifiedSignIn(pool, client, member, step.challenge ?? "", responses.CREDENTIAL);
      useUp(session);
      return result;
    },

    /** StartWebAuthnRegistration: creation options for a new passkey; the challenge is kept for the completion. */
    async startRegistration(pool: LocalUserPool, user: LocalUser, clientId: string): Promise<Body> {
      const { rpId, settings } = relyingPartyOf(pool.options);
      const email = user.Attributes.find((item) => item.Name === "email")?.Value ?? user.Username;
      const options = await generateRegistrationOptions({
        rpName: rpId,
        rpID: rpId,
        userID: userHandle(user),
        userName: email,
        userDisplayName: email,
        attestationType: "none",
        excludeCredentials: passkeysOf(user).map((passkey) => ({
          id: passkey.credentialId,
          transports: passkey.transports,
        })),
        authenticatorSelection: { residentKey: "required", userVerification: settings.UserVerification },
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
        timeout: CEREMONY_TIMEOUT_MS,
      });
      const now = hooks.now().getTime();
      for (const [name, held] of registrations) if (held.expiresAt <= now) registrations.delete(name);
      registrations.set(key(pool, user), {
        challenge: options.challenge,
        clientId,
        expiresAt: now + CEREMONY_TIMEOUT_MS,
      });
      return { CredentialCreationOptions: options };
    },

    /** CompleteWebAuthnRegistration: the attestation checked against the started challenge, the passkey kept. */
    async completeRegistration(pool: LocalUserPool, user: LocalUser, clientId: string, value: unknown) {
      const { rpId, settings } = relyingPartyOf(pool.options);
      const credential = parsedCredential<RegistrationResponseJSON>(value);
      const held = registrations.get(key(pool, user));
      if (!held || held.expiresAt <= hooks.now().getTime()) {
        throw new CognitoFault("WebAuthnChallengeNotFoundException", "No passkey registration was started.");
      }
      if (held.clientId !== clientId) {
        throw new CognitoFault(
          "WebAuthnClientMismatchException",
          "The passkey registration was started from another app client.",
        );
      }
      const origin = allowedOrigin(credential.response.clientDataJSON, rpId);
      let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verification = await verifyRegistrationResponse({
          response: credential,
          expectedChallenge: held.challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          requireUserVerification: settings.UserVerification === "required",
          supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (/challenge/i.test(message)) {
          throw new CognitoFault("WebAuthnChallengeNotFoundException", "The passkey challenge does not match.");
        }
        if (/RP ID/i.test(message)) {
          throw new CognitoFault("WebAuthnRelyingPartyMismatchException", `The credential is not for ${rpId}.`);
        }
        throw fault.invalidParameter(`The passkey credential is not valid: ${message}`);
      }
      if (!verification.verified) throw fault.invalidParameter("The passkey credential is not valid.");
      registrations.delete(key(pool, user));
      const created = verification.registrationInfo.credential;
      if (passkeysOf(user).some((item) => item.credentialId === created.id)) {
        throw fault.invalidParameter("The passkey is already registered.");
      }
      const passkey: StoredPasskey = {
        credentialId: created.id,
        publicKey: isoBase64URL.fromBuffer(created.publicKey),
        counter: created.counter,
        transports: credential.response.transports ?? [],
        ...(credential.authenticatorAttachment ? { attachment: credential.authenticatorAttachment } : {}),
        relyingPartyId: rpId,
        friendlyName: `Passkey ${created.id.slice(0, 8)}`,
        createdAt: hooks.now().toISOString(),
      };
      await hooks.save(pool, { ...user, HarnessPasskeys: [...passkeysOf(user), passkey] });
      return {};
    },

    /** ListWebAuthnCredentials: the user's passkeys, oldest first, MaxResults at a time. */
    list(user: LocalUser, body: Body): Body {
      const limit = body.MaxResults ?? MAX_LIST_RESULTS;
      if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0 || limit > MAX_LIST_RESULTS) {
        throw fault.invalidParameter(
          `1 validation error detected: Value '${String(limit)}' at 'maxResults' failed to satisfy constraint: ` +
            `Member must have value less than or equal to ${MAX_LIST_RESULTS}`,
        );
      }
      const all = passkeysOf(user);
      const offset = text(body.NextToken) ? all.findIndex((item) => item.credentialId === body.NextToken) : 0;
      if (offset < 0) throw fault.invalidParameter("Invalid NextToken");
      const page = all.slice(offset, offset + (limit || MAX_LIST_RESULTS));
      const next = all[offset + page.length];
      return { Credentials: page.map(describe), ...(next ? { NextToken: next.credentialId } : {}) };
    },

    /** DeleteWebAuthnCredential: the passkey can no longer sign in. */
    async remove(pool: LocalUserPool, user: LocalUser, credentialId: unknown): Promise<Body> {
      if (!text(credentialId)) throw fault.invalidParameter("Missing required parameter CredentialId");
      const kept = passkeysOf(user).filter((item) => item.credentialId !== credentialId);
      if (kept.length === passkeysOf(user).length) {
        throw new CognitoFault("ResourceNotFoundException", "The passkey credential does not exist.");
      }
      await hooks.save(pool, { ...user, HarnessPasskeys: kept });
      return {};
    },

    /** The harness's control: every passkey sign-in session expires now. */
    expireSessions(): number {
      steps.clear();
      return sessions.expireAll();
    },
  };
}
