/**
 * TOTP multi-factor authentication (a "software token") as Cognito does it, in the stand-in harness:
 * AssociateSoftwareToken, VerifySoftwareToken, SetUserMFAPreference, AdminSetUserMFAPreference,
 * AdminDeleteSoftwareToken, and the SOFTWARE_TOKEN_MFA challenge of a password sign-in. cognito-local has its own
 * enrolment, but it finds the user without checking the access token, overwrites a verified token as soon as a new
 * one is associated, accepts a code twice and any challenge Session, and has no admin operations: the harness
 * answers all of it here instead.
 *
 * State: the verified token (secret, device name, last time step used) and a pending secret are the harness's own
 * fields on cognito-local's user record, so they are saved, survive a restart and go with the user as the rest of
 * the record does; the enabled methods and the preferred one are cognito-local's own fields (UserMFASettingList,
 * PreferredMfaSetting), which its GetUser and AdminGetUser report. Challenge Sessions live in memory, as the
 * NEW_PASSWORD_REQUIRED ones do. Never part of production.
 */
import { Secret, TOTP } from "otpauth";
import type { HarnessSoftwareToken, LocalAppClient, LocalUser, LocalUserPool } from "./cognito-local";
import { CognitoFault, fault } from "./errors";
import { ChallengeSessions, DEFAULT_AUTH_SESSION_VALIDITY_MINUTES } from "./invitations";

export const SOFTWARE_TOKEN_MFA = "SOFTWARE_TOKEN_MFA";

/** RFC 6238 as Cognito uses it: HMAC-SHA-1, 6 digits, 30-second steps, a code of the step before or after accepted. */
const TOTP_SETTINGS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
const TOLERATED_STEPS = 1;
/** Cognito's SecretCode: 20 random bytes, 32 base32 characters. */
const SECRET_BYTES = 20;

type Body = Record<string, unknown>;

const errors = {
  // Developer guide, "TOTP software token MFA": a pool without TOTP turned on answers associate and verify so.
  notEnabledForPool: () =>
    new CognitoFault("SoftwareTokenMFANotFoundException", "Software Token MFA has not been enabled by the userPool."),
  // The text Cognito gives when the user has no token to check the code against (amazon-cognito-identity-js#630).
  notFoundForUser: () =>
    new CognitoFault("SoftwareTokenMFANotFoundException", "Software Token MFA does not exist for the user."),
  // API_VerifySoftwareToken errors: EnableSoftwareTokenMFAException, "there is a code mismatch and the service fails
  // to configure the software token"; the text as Cognito words it (aws-samples/aws-amplify-auth-starters#15).
  enableMismatch: () =>
    new CognitoFault("EnableSoftwareTokenMFAException", "Code mismatch and fail enable Software Token MFA"),
  // API_AdminRespondToAuthChallenge errors: CodeMismatchException; Cognito's text for a wrong MFA code (the one
  // Amplify's INVALID_MFA_CODE matches).
  challengeMismatch: () => new CognitoFault("CodeMismatchException", "Invalid code received for user"),
  // RFC 6238 §5.2: the verifier must not accept a code a second time. Cognito refuses it with ExpiredCodeException
  // and this text (Amplify Swift's TOTP integration tests wait out the step for that reason).
  alreadyUsed: () => new CognitoFault("ExpiredCodeException", "Your software token has already been used once."),
  // API_SetUserMFAPreference: turning TOTP on needs a verified token (Cognito's text, aws-amplify/amplify-js#944).
  notSetUp: () => fault.invalidParameter("User has not set up software token mfa"),
  /** The MFA_SETUP sign-in (a pool with MFA "ON") and the other factors: the stand-in has none of them. */
  unsupported: (what: string) => new CognitoFault("StandInUnsupportedException", what),
};

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

function totpOf(secret: string): TOTP {
  return new TOTP({ secret: Secret.fromBase32(secret), ...TOTP_SETTINGS });
}

/** The time step a code belongs to, within one step of `now`; null when it is no code of this secret. */
export function timeStepOf(secret: string, code: unknown, now: number): number | null {
  if (typeof code !== "string" || !/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: TOLERATED_STEPS });
  return delta === null ? null : totp.counter({ timestamp: now }) + delta;
}

/** The user record with these MFA methods on and this one preferred; empty ones are left out, as Cognito does. */
function withMfaSettings(user: LocalUser, methods: string[], preferred: string | undefined): LocalUser {
  const { UserMFASettingList: _methods, PreferredMfaSetting: _preferred, ...rest } = user;
  return {
    ...rest,
    ...(methods.length ? { UserMFASettingList: methods } : {}),
    ...(preferred && methods.includes(preferred) ? { PreferredMfaSetting: preferred } : {}),
  };
}

export interface SoftwareTokenDependencies {
  now(): Date;
  /** The user an access token belongs to, after Cognito's checks (signature, expiry, revocation, disabled). */
  userOfAccessToken(token: unknown): Promise<{ pool: LocalUserPool; user: LocalUser }>;
  poolById(userPoolId: unknown): Promise<LocalUserPool>;
  findUser(pool: LocalUserPool, username: unknown): Promise<LocalUser | null>;
  /** Saves the user; `touch` also sets UserLastModifiedDate. */
  save(pool: LocalUserPool, user: LocalUser, touch?: boolean): Promise<void>;
  /** The answer of a completed sign-in: tokens as the password sign-in issues them. */
  signedIn(pool: LocalUserPool, client: LocalAppClient, user: LocalUser, clientMetadata: unknown): Promise<Body>;
}

export function createSoftwareTokens(deps: SoftwareTokenDependencies) {
  const sessions = new ChallengeSessions();
  // The last step accepted per user, kept in memory too: two answers in flight at once cannot both pass the check
  // before either is saved.
  const acceptedSteps = new Map<string, number>();
  const userKey = (pool: LocalUserPool, user: LocalUser) => `${pool.options.Id}/${user.Username}`;

  function assertEnabledForPool(pool: LocalUserPool): void {
    if (pool.options.SoftwareTokenMfaConfiguration?.Enabled !== true) throw errors.notEnabledForPool();
  }

  /**
   * Only the access token: the Session of an MFA_SETUP challenge belongs to a pool with MFA "ON", whose set-up at
   * sign-in the stand-in does not run.
   */
  function assertAccessToken(body: Body): void {
    if (body.AccessToken === undefined && text(body.Session)) {
      throw errors.unsupported("Software token set-up with the Session of an MFA_SETUP challenge");
    }
  }

  /** SetUserMFAPreference and AdminSetUserMFAPreference: TOTP turned on or off, preferred or not. */
  async function setPreference(pool: LocalUserPool, user: LocalUser, body: Body): Promise<void> {
    for (const other of ["SMSMfaSettings", "EmailMfaSettings", "WebAuthnMfaSettings"]) {
      if ((body[other] as { Enabled?: unknown } | undefined)?.Enabled === true) throw errors.unsupported(other);
    }
    const settings = body.SoftwareTokenMfaSettings as { Enabled?: unknown; PreferredMfa?: unknown } | undefined;
    if (!settings) return;
    if ((settings.Enabled === true || settings.PreferredMfa === true) && !user.HarnessSoftwareToken) {
      throw errors.notSetUp();
    }
    const methods = new Set(user.UserMFASettingList ?? []);
    if (settings.Enabled === true) methods.add(SOFTWARE_TOKEN_MFA);
    if (settings.Enabled === false) methods.delete(SOFTWARE_TOKEN_MFA);
    let preferred = user.PreferredMfaSetting;
    if (settings.PreferredMfa === true) preferred = SOFTWARE_TOKEN_MFA;
    if (settings.PreferredMfa === false && preferred === SOFTWARE_TOKEN_MFA) preferred = undefined;
    await deps.save(pool, withMfaSettings(user, [...methods], preferred));
  }

  const operations = {
    AssociateSoftwareToken: {
      async replace(body: Body) {
        assertAccessToken(body);
        const { pool, user } = await deps.userOfAccessToken(body.AccessToken);
        assertEnabledForPool(pool);
        // API_AssociateSoftwareToken: the verified token stays until the new one is verified.
        const secret = new Secret({ size: SECRET_BYTES }).base32;
        await deps.save(pool, { ...user, HarnessPendingSoftwareTokenSecret: secret }, false);
        return { SecretCode: secret };
      },
    },

    VerifySoftwareToken: {
      async replace(body: Body) {
        assertAccessToken(body);
        if (!text(body.UserCode)) throw fault.invalidParameter("Missing required parameter UserCode");
        const { pool, user } = await deps.userOfAccessToken(body.AccessToken);
        assertEnabledForPool(pool);
        const secret = user.HarnessPendingSoftwareTokenSecret;
        if (!secret) throw errors.notFoundForUser();
        const step = timeStepOf(secret, body.UserCode, deps.now().getTime());
        if (step === null) throw errors.enableMismatch();
        // The new token replaces the old one; the code that verified it counts as used.
        const { HarnessPendingSoftwareTokenSecret: _pending, ...rest } = user;
        const token: HarnessSoftwareToken = {
          secret,
          lastTimeStep: step,
          ...(text(body.FriendlyDeviceName) ? { friendlyDeviceName: body.FriendlyDeviceName as string } : {}),
        };
        acceptedSteps.set(userKey(pool, user), step);
        await deps.save(pool, { ...rest, HarnessSoftwareToken: token });
        return { Status: "SUCCESS" };
      },
    },

    SetUserMFAPreference: {
      async replace(body: Body) {
        const { pool, user } = await deps.userOfAccessToken(body.AccessToken);
        await setPreference(pool, user, body);
        return {};
      },
    },

    AdminSetUserMFAPreference: {
      async replace(body: Body) {
        const pool = await deps.poolById(body.UserPoolId);
        const user = await deps.findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        await setPreference(pool, user, body);
        return {};
      },
    },

    AdminDeleteSoftwareToken: {
      async replace(body: Body) {
        const pool = await deps.poolById(body.UserPoolId);
        const user = await deps.findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        // API_AdminDeleteSoftwareToken: the user can no longer sign in with TOTP and may associate a new one.
        const {
          HarnessSoftwareToken: _token,
          HarnessPendingSoftwareTokenSecret: _pending,
          ...rest
        } = withMfaSettings(
          user,
          (user.UserMFASettingList ?? []).filter((method) => method !== SOFTWARE_TOKEN_MFA),
          user.PreferredMfaSetting,
        );
        acceptedSteps.delete(userKey(pool, user));
        await deps.save(pool, rest);
        return {};
      },
    },
  };

  return {
    operations,

    /**
     * The SOFTWARE_TOKEN_MFA challenge a password sign-in answers instead of tokens, or null: the user has TOTP turned
     * on and the pool's MFA is not "OFF" (a pool with MFA off challenges no one).
     */
    challenge(pool: LocalUserPool, client: LocalAppClient, user: LocalUser): Body | null {
      const poolMfa = pool.options.MfaConfiguration;
      if (poolMfa !== "OPTIONAL" && poolMfa !== "ON") return null;
      const token = user.HarnessSoftwareToken;
      if (!token || !user.UserMFASettingList?.includes(SOFTWARE_TOKEN_MFA)) return null;
      const session = sessions.issue(
        { userPoolId: pool.options.Id, clientId: client.ClientId, username: user.Username },
        client.AuthSessionValidity ?? DEFAULT_AUTH_SESSION_VALIDITY_MINUTES,
      );
      return {
        ChallengeName: SOFTWARE_TOKEN_MFA,
        // As Cognito answers it (AWS re:Post, "Configure TOTP MFA for a Cognito user pool", admin-initiate-auth).
        ChallengeParameters: {
          USER_ID_FOR_SRP: user.Username,
          ...(token.friendlyDeviceName ? { FRIENDLY_DEVICE_NAME: token.friendlyDeviceName } : {}),
        },
        Session: session,
      };
    },

    /**
     * AdminRespondToAuthChallenge / RespondToAuthChallenge with SOFTWARE_TOKEN_MFA: the Session must be this user's
     * and client's and unexpired; a wrong code may be tried again with it, a right one uses it up.
     */
    async answer(pool: LocalUserPool, client: LocalAppClient, body: Body): Promise<Body> {
      const responses = (body.ChallengeResponses ?? {}) as Record<string, unknown>;
      if (!text(responses.USERNAME)) throw fault.invalidParameter("Missing required parameter USERNAME");
      if (!text(responses.SOFTWARE_TOKEN_MFA_CODE)) {
        throw fault.invalidParameter("Missing required parameter SOFTWARE_TOKEN_MFA_CODE");
      }
      if (!text(body.Session)) throw fault.invalidParameter("Missing required parameter Session");
      const user = await deps.findUser(pool, responses.USERNAME);
      const binding = user
        ? sessions.find(body.Session, {
            userPoolId: pool.options.Id,
            clientId: client.ClientId,
            username: user.Username,
          })
        : null;
      if (!user || !binding) throw fault.challengeSessionExpired();
      if (!user.Enabled) throw fault.userDisabled();
      const token = user.HarnessSoftwareToken;
      if (!token) throw errors.notFoundForUser();
      const step = timeStepOf(token.secret, responses.SOFTWARE_TOKEN_MFA_CODE, deps.now().getTime());
      if (step === null) throw errors.challengeMismatch();
      const key = userKey(pool, user);
      const last = Math.max(token.lastTimeStep ?? -Infinity, acceptedSteps.get(key) ?? -Infinity);
      if (step <= last) throw errors.alreadyUsed();
      acceptedSteps.set(key, step);
      sessions.useUp(body.Session as string);
      const current: LocalUser = { ...user, HarnessSoftwareToken: { ...token, lastTimeStep: step } };
      await deps.save(pool, current, false);
      return deps.signedIn(pool, client, current, body.ClientMetadata);
    },

    /** Every outstanding SOFTWARE_TOKEN_MFA Session expires now (the harness's control, with the other challenges'). */
    expireSessions(): number {
      return sessions.expireAll();
    },
  };
}

export type SoftwareTokens = ReturnType<typeof createSoftwareTokens>;
