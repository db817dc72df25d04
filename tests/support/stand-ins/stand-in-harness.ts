/**
 * The stand-in harness: an HTTP front, in the Cognito stand-in's own process, in front of cognito-local. It forwards
 * every request to cognito-local's server on an internal loopback port and corrects what cognito-local does
 * differently from real Cognito for the operations this app uses (error names and texts, password policy,
 * ResendConfirmationCode, global sign-out, token revocation, ListUsers paging, email_verified, ExpiresIn, the pool
 * and client settings the start-up check reads, invitations and the NEW_PASSWORD_REQUIRED challenge, TOTP MFA,
 * passkeys, …),
 * so the app's one code path (the AWS SDK over HTTP) meets Cognito's behaviour in development and tests.
 *
 * It also carries the switches tests need (faults and a request counter), at HARNESS_PATH. Every correction is
 * pinned by tests/contract. Never part of production.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import type {
  CodeDeliveryDetails,
  Ctx,
  LocalAppClient,
  LocalGroup,
  LocalServices,
  LocalUser,
  LocalUserPool,
} from "./stand-in/cognito-local";
import { isCognitoLocalError } from "./stand-in/cognito-local";
import { CognitoFault, errorResponse, fault } from "./stand-in/errors";
import {
  HARNESS_PATH,
  HarnessSwitches,
  InvalidFaultSettings,
  JWKS_OPERATION,
  OPENID_CONFIGURATION_OPERATION,
  answerDelay,
  faultDelay,
  faultError,
} from "./stand-in/faults";
import {
  ChallengeSessions,
  DEFAULT_AUTH_SESSION_VALIDITY_MINUTES,
  agedInvitation,
  generateTemporaryPassword,
  invitationMessage,
  temporaryPasswordExpired,
} from "./stand-in/invitations";
import { listUsersPage, pageLimit, pageOf } from "./stand-in/list-users";
import { createPasskeys, mergedWebAuthnSettings, userPoolTier, webAuthnSettings } from "./stand-in/passkeys";
import { assertPasswordConforms } from "./stand-in/password-policy";
import { SOFTWARE_TOKEN_MFA, createSoftwareTokens } from "./stand-in/software-tokens";
import { originOfRefreshToken, shapeAuthenticationResult, verifiedClaims } from "./stand-in/tokens";
import type { LambdaFunctions } from "./stand-in/lambda-functions";
import { SELF_SERVICE_SCOPE } from "~/integrations/cognito/pre-token-generation";

export interface HarnessLogger {
  error(object: unknown, message?: string): void;
  warn(object: unknown, message?: string): void;
  debug(object: unknown, message?: string): void;
}

export interface StandInHarnessOptions {
  services: LocalServices;
  /** cognito-local's own server, e.g. http://127.0.0.1:41234 */
  internalUrl: string;
  /** The address clients use (and the tokens' issuer host), e.g. http://127.0.0.1:9229 */
  publicUrl: string;
  /** The Lambda functions the pools' triggers run (the same registry the token generator invokes). */
  functions: LambdaFunctions;
  logger: HarnessLogger;
}

type Body = Record<string, unknown>;
interface Reply {
  status: number;
  body: unknown;
}

/**
 * The access-token (self-service) operations of the API: Cognito checks the token's signature, expiry, revocation
 * and its aws.cognito.signin.user.admin scope. Those cognito-local lacks (the device operations, SetUserSettings) are
 * checked all the same, so a token without the scope is refused as Cognito refuses it, before "unsupported".
 */
const ACCESS_TOKEN_OPERATIONS = new Set([
  "GetUser",
  "UpdateUserAttributes",
  "DeleteUser",
  "DeleteUserAttributes",
  "VerifyUserAttribute",
  "GetUserAttributeVerificationCode",
  "SetUserMFAPreference",
  "SetUserSettings",
  "ChangePassword",
  "GlobalSignOut",
  "ConfirmDevice",
  "GetDevice",
  "ListDevices",
  "UpdateDeviceStatus",
  "ForgetDevice",
]);

/** How many revoked sign-ins a user record remembers (their access tokens expire within the hour anyway). */
const MAX_REVOKED_ORIGINS = 200;

const JSON_CONTENT_TYPE = "application/x-amz-json-1.1";

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function attribute(user: LocalUser, name: string): string | undefined {
  return user.Attributes.find((item) => item.Name === name)?.Value;
}

function withAttribute(user: LocalUser, name: string, value: string): LocalUser["Attributes"] {
  return [...user.Attributes.filter((item) => item.Name !== name), { Name: name, Value: value }].sort((a, b) =>
    a.Name.localeCompare(b.Name),
  );
}

/** Cognito masks delivery destinations in its responses: "member@example.jp" → "m***@e***". */
export function maskDestination(destination: string): string {
  const at = destination.indexOf("@");
  if (at < 1) return destination.length > 4 ? `+*******${destination.slice(-4)}` : destination;
  return `${destination[0]}***@${destination[at + 1] ?? ""}***`;
}

function maskDelivery(details: unknown): unknown {
  if (!details || typeof details !== "object") return details;
  const value = details as CodeDeliveryDetails;
  return typeof value.Destination === "string" ? { ...value, Destination: maskDestination(value.Destination) } : value;
}

/** JSON as cognito-local writes it: dates as epoch seconds, which the SDK reads as timestamps. */
function serialize(body: unknown): string {
  return JSON.stringify(body, function (this: Record<string, unknown>, key, value: unknown) {
    const original = this[key];
    return original instanceof Date ? Math.floor(original.getTime() / 1000) : value;
  });
}

function groupResponse(userPoolId: string, group: LocalGroup) {
  return {
    GroupName: group.GroupName,
    UserPoolId: userPoolId,
    ...(group.Description !== undefined ? { Description: group.Description } : {}),
    ...(group.Precedence !== undefined ? { Precedence: group.Precedence } : {}),
    ...(group.RoleArn !== undefined ? { RoleArn: group.RoleArn } : {}),
    ...(group.CreationDate ? { CreationDate: group.CreationDate } : {}),
    ...(group.LastModifiedDate ? { LastModifiedDate: group.LastModifiedDate } : {}),
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function createStandInHarness(options: StandInHarnessOptions) {
  const { services, internalUrl, publicUrl, functions, logger } = options;
  const { cognito } = services;
  const ctx: Ctx = { logger };
  const switches = new HarnessSwitches();
  const challengeSessions = new ChallengeSessions();

  // ---- cognito-local in-process helpers -------------------------------------------------------------------------

  async function appClient(clientId: unknown): Promise<LocalAppClient> {
    const client = typeof clientId === "string" ? await cognito.getAppClient(ctx, clientId) : null;
    if (!client)
      throw new CognitoFault("ResourceNotFoundException", `User pool client ${String(clientId)} does not exist.`);
    return client;
  }

  async function poolOf(client: LocalAppClient): Promise<LocalUserPool> {
    return cognito.getUserPool(ctx, client.UserPoolId);
  }

  async function poolById(userPoolId: unknown): Promise<LocalUserPool> {
    if (typeof userPoolId !== "string") throw fault.invalidParameter("Missing required parameter UserPoolId");
    return cognito.getUserPool(ctx, userPoolId);
  }

  async function findUser(pool: LocalUserPool, username: unknown): Promise<LocalUser | null> {
    return typeof username === "string" && username ? pool.getUserByUsername(ctx, username) : null;
  }

  const preventsExistenceErrors = (client: LocalAppClient) => client.PreventUserExistenceErrors === "ENABLED";

  async function save(pool: LocalUserPool, user: LocalUser, touch = true): Promise<void> {
    await pool.saveUser(ctx, touch ? { ...user, UserLastModifiedDate: services.clock.get() } : user);
  }

  /** Ends every sign-in of the user: refresh tokens forgotten, their access tokens revoked. */
  async function signOutEverywhere(pool: LocalUserPool, user: LocalUser): Promise<void> {
    const origins = (user.RefreshTokens ?? []).map(originOfRefreshToken).filter((jti): jti is string => !!jti);
    await save(pool, { ...user, RefreshTokens: [], HarnessRevokedOrigins: remember(user, origins) }, false);
  }

  function remember(user: LocalUser, origins: string[]): string[] {
    return [...new Set([...(user.HarnessRevokedOrigins ?? []), ...origins])].slice(-MAX_REVOKED_ORIGINS);
  }

  /** The user an access token belongs to, after Cognito's checks: signature, token use, expiry, revocation. */
  async function userOfAccessToken(
    token: unknown,
  ): Promise<{ pool: LocalUserPool; user: LocalUser; clientId: string }> {
    const claims = verifiedClaims(token);
    if (!claims || claims.token_use !== "access" || typeof claims.client_id !== "string") {
      throw fault.invalidAccessToken();
    }
    if (typeof claims.exp === "number" && claims.exp * 1000 <= Date.now()) throw fault.accessTokenExpired();
    if (
      !String(claims.scope ?? "")
        .split(" ")
        .includes(SELF_SERVICE_SCOPE)
    )
      throw fault.accessTokenLacksScope();
    const pool = await cognito.getUserPoolForClientId(ctx, claims.client_id);
    const user = await findUser(pool, text(claims.username) ?? text(claims.sub));
    if (!user) throw fault.userNotFound();
    if (typeof claims.origin_jti === "string" && user.HarnessRevokedOrigins?.includes(claims.origin_jti)) {
      throw fault.accessTokenRevoked();
    }
    if (!user.Enabled) throw fault.userDisabled();
    return { pool, user, clientId: claims.client_id };
  }

  function deliveryFor(pool: LocalUserPool, user: LocalUser): CodeDeliveryDetails {
    const email = attribute(user, "email");
    if (!pool.options.AutoVerifiedAttributes?.includes("email") || !email) {
      throw fault.invalidParameter("Cannot resend codes. Auto verification not turned on.");
    }
    return { AttributeName: "email", DeliveryMedium: "EMAIL", Destination: email };
  }

  /** The answer Cognito gives for an unknown user when PreventUserExistenceErrors is ENABLED: a simulated delivery. */
  function simulatedDelivery(username: unknown): { CodeDeliveryDetails: CodeDeliveryDetails } {
    return {
      CodeDeliveryDetails: {
        AttributeName: "email",
        DeliveryMedium: "EMAIL",
        Destination: maskDestination(String(username ?? "")),
      },
    };
  }

  /** With e-mail as the username, an address belongs to one user: taking another's gives AliasExistsException. */
  async function assertEmailAvailable(pool: LocalUserPool, user: LocalUser, attributes: unknown): Promise<void> {
    if (!pool.options.UsernameAttributes?.includes("email") || !Array.isArray(attributes)) return;
    const email = (attributes as { Name?: unknown; Value?: unknown }[]).find((item) => item.Name === "email")?.Value;
    if (typeof email !== "string" || !email) return;
    const holder = await findUser(pool, email);
    if (holder && holder.Username !== user.Username) {
      throw new CognitoFault("AliasExistsException", "An account with the given email already exists.");
    }
  }

  function assertAuthFlowAllowed(client: LocalAppClient, flow: string): void {
    const allowed = client.ExplicitAuthFlows;
    if (!allowed?.length) return;
    const names: Record<string, string[]> = {
      ADMIN_USER_PASSWORD_AUTH: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"],
      ADMIN_NO_SRP_AUTH: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"],
      USER_PASSWORD_AUTH: ["ALLOW_USER_PASSWORD_AUTH", "USER_PASSWORD_AUTH"],
      REFRESH_TOKEN_AUTH: ["ALLOW_REFRESH_TOKEN_AUTH"],
      REFRESH_TOKEN: ["ALLOW_REFRESH_TOKEN_AUTH"],
      USER_AUTH: ["ALLOW_USER_AUTH"],
    };
    const accepted = names[flow];
    if (accepted && !accepted.some((name) => allowed.includes(name))) {
      throw fault.invalidParameter("Auth flow not enabled for this client");
    }
  }

  /**
   * An app client as Cognito describes it: what the client never chose reads as Cognito's default (token revocation
   * on, LEGACY existence errors), and the refresh-token rotation setting the harness kept beside cognito-local's record.
   */
  async function describedClient(client: Body | undefined): Promise<Body | undefined> {
    if (!client || typeof client.ClientId !== "string") return client;
    const stored = await cognito.getAppClient(ctx, client.ClientId);
    return {
      ...client,
      EnableTokenRevocation: client.EnableTokenRevocation ?? true,
      PreventUserExistenceErrors: client.PreventUserExistenceErrors ?? "LEGACY",
      ...(stored?.RefreshTokenRotation ? { RefreshTokenRotation: stored.RefreshTokenRotation } : {}),
    };
  }

  /** Keeps a client's RefreshTokenRotation, which cognito-local drops; omitted means Cognito's default (off). */
  async function keepRefreshTokenRotation(body: Body, result: Body): Promise<void> {
    const clientId = text((result.UserPoolClient as Body | undefined)?.ClientId);
    const stored = clientId ? await cognito.getAppClient(ctx, clientId) : null;
    if (!stored) return;
    const rotation = body.RefreshTokenRotation as LocalAppClient["RefreshTokenRotation"];
    const { RefreshTokenRotation: _previous, ...rest } = stored;
    await (await poolOf(stored)).saveAppClient(ctx, rotation ? { ...rest, RefreshTokenRotation: rotation } : rest);
  }

  /**
   * The bulk seed for tests of scale: users written into the pool's store in one write, as cognito-local keeps them
   * (Username is the sub, as in a pool that signs in by e-mail), created a millisecond apart in the list's order.
   */
  async function seedUsers(body: Body): Promise<{ users: { sub: string; email: string }[] }> {
    const pool = await poolById(body.userPoolId);
    if (!Array.isArray(body.users)) throw new Error("users must be a list");
    const start = services.clock.get().getTime();
    const seeded = (body.users as Body[]).map((seed, index): LocalUser => {
      const sub = randomUUID();
      const email = text(seed.email);
      if (!email) throw new Error(`users[${index}] has no email`);
      const extra = Object.entries((seed.attributes ?? {}) as Record<string, string>).map(([Name, Value]) => ({
        Name,
        Value,
      }));
      const created = new Date(start + index);
      return {
        Username: sub,
        Password: randomUUID(),
        Attributes: [
          { Name: "sub", Value: sub },
          { Name: "email", Value: email },
          { Name: "email_verified", Value: "true" },
          ...extra,
        ].sort((a, b) => a.Name.localeCompare(b.Name)),
        Enabled: seed.enabled !== false,
        UserStatus: text(seed.status) ?? "CONFIRMED",
        UserCreateDate: created,
        UserLastModifiedDate: created,
      };
    });
    const existing = (await pool.dataStore.get<Record<string, LocalUser>>(ctx, "Users", {})) ?? {};
    await pool.dataStore.set(ctx, "Users", {
      ...existing,
      ...Object.fromEntries(seeded.map((user) => [user.Username, user])),
    });
    return { users: seeded.map((user) => ({ sub: user.Username, email: attribute(user, "email") ?? "" })) };
  }

  /** The answer of a challenge the harness completes itself: the sign-in's tokens and no further challenge. */
  async function signedIn(pool: LocalUserPool, client: LocalAppClient, user: LocalUser, clientMetadata: unknown) {
    return { ChallengeParameters: {}, AuthenticationResult: await issueTokens(pool, client, user, clientMetadata) };
  }

  const softwareTokens = createSoftwareTokens({
    now: () => services.clock.get(),
    userOfAccessToken,
    poolById,
    findUser,
    save,
    signedIn,
  });

  // ---- invitations ---------------------------------------------------------------------------------------------

  /** Where AdminCreateUser's invitation goes: e-mail only (the stand-in sends no SMS), as cognito-local words it. */
  function invitationDestination(mediums: unknown, attributes: unknown, username: unknown): string {
    const wanted = Array.isArray(mediums) ? (mediums as string[]) : ["SMS"];
    const list = Array.isArray(attributes) ? (attributes as { Name?: unknown; Value?: unknown }[]) : [];
    const email = text(list.find((item) => item.Name === "email")?.Value) ?? text(username);
    if (!wanted.includes("EMAIL") || !email?.includes("@")) {
      throw fault.invalidParameter("User has no attribute matching desired delivery mediums");
    }
    return email;
  }

  /** The pool's invitation (InviteMessageTemplate, or Cognito's default text) with the user name and password. */
  async function deliverInvitation(pool: LocalUserPool, user: LocalUser, temporaryPassword: string, body: Body) {
    const destination = invitationDestination(body.DesiredDeliveryMediums, user.Attributes, attribute(user, "email"));
    const template = pool.options.AdminCreateUserConfig?.InviteMessageTemplate;
    await services.messageDelivery.deliver(
      ctx,
      user,
      { AttributeName: "email", DeliveryMedium: "EMAIL", Destination: destination },
      { __code: temporaryPassword, ...invitationMessage(template, user.Username, temporaryPassword) },
    );
  }

  /**
   * AdminCreateUser with MessageAction RESEND (cognito-local refuses it): a new temporary password, valid for the
   * policy's days again, mailed anew; the previous one stops working. Only a user still waiting for a first sign-in.
   */
  async function resendInvitation(pool: LocalUserPool, body: Body) {
    const user = await findUser(pool, body.Username);
    if (!user) throw fault.userNotFound();
    if (user.UserStatus !== "FORCE_CHANGE_PASSWORD") {
      throw new CognitoFault(
        "UnsupportedUserStateException",
        `Resend not possible. ${String(body.Username)} status is ${user.UserStatus}.`,
      );
    }
    invitationDestination(body.DesiredDeliveryMediums, user.Attributes, undefined);
    const temporaryPassword =
      text(body.TemporaryPassword) ?? generateTemporaryPassword(pool.options.Policies?.PasswordPolicy);
    const now = services.clock.get();
    const invited: LocalUser = {
      ...user,
      Password: temporaryPassword,
      HarnessInvitedAt: now.toISOString(),
      UserLastModifiedDate: now,
    };
    await pool.saveUser(ctx, invited);
    await deliverInvitation(pool, invited, temporaryPassword, body);
    return {
      User: {
        Username: invited.Username,
        Attributes: invited.Attributes,
        Enabled: invited.Enabled,
        UserStatus: invited.UserStatus,
        UserCreateDate: invited.UserCreateDate,
        UserLastModifiedDate: invited.UserLastModifiedDate,
      },
    };
  }

  /** The harness's control: makes a user's current invitation `days` older (expiry tests need not wait). */
  async function ageInvitation(body: Body): Promise<{ invitedAt: string }> {
    const pool = await poolById(body.userPoolId);
    const user = await findUser(pool, body.username);
    if (!user) throw new Error(`No user ${String(body.username)}`);
    const days = typeof body.days === "number" && body.days > 0 ? body.days : null;
    if (days === null) throw new Error("days must be a positive number");
    const aged = agedInvitation(user, days);
    await save(pool, aged, false);
    return { invitedAt: String(aged.HarnessInvitedAt) };
  }

  // ---- per-operation behaviour ----------------------------------------------------------------------------------

  interface Prepared {
    /** Answer this instead of forwarding. */
    reply?: unknown;
    /** Forward this request body instead of the one received. */
    forwardBody?: Body;
    /** Carried to `after`. */
    user?: LocalUser | null;
    pool?: LocalUserPool;
    origin?: string;
    /** A refresh: its sign-in's time (the refresh token's `iat`), which the new tokens keep as `auth_time`. */
    authTime?: number;
  }

  interface Operation {
    /** Handled entirely here; cognito-local does not support it or gets it wrong. */
    replace?: (body: Body) => Promise<unknown>;
    /** Cognito's checks that cognito-local lacks; may answer on its own. */
    before?: (body: Body) => Promise<Prepared | void>;
    /** Shapes cognito-local's successful answer like Cognito's. */
    after?: (body: Body, result: Body, prepared: Prepared) => Promise<unknown>;
  }

  async function authenticate(body: Body, admin: boolean): Promise<Prepared | void> {
    const client = await appClient(body.ClientId);
    const pool = await poolOf(client);
    const flow = text(body.AuthFlow) ?? "";
    assertAuthFlowAllowed(client, flow);
    const parameters = (body.AuthParameters ?? {}) as Record<string, unknown>;
    const passwordFlows = admin ? ["ADMIN_USER_PASSWORD_AUTH", "ADMIN_NO_SRP_AUTH"] : ["USER_PASSWORD_AUTH"];
    if (passwordFlows.includes(flow)) {
      if (!text(parameters.USERNAME)) throw fault.invalidParameter("Missing required parameter USERNAME");
      if (!text(parameters.PASSWORD)) throw fault.invalidParameter("Missing required parameter PASSWORD");
      const user = await findUser(pool, parameters.USERNAME);
      if (!user) throw preventsExistenceErrors(client) ? fault.incorrectCredentials() : fault.userNotFound();
      // Cognito checks the password first: a disabled or unconfirmed account is only revealed to its owner.
      if (user.Password !== parameters.PASSWORD) throw fault.incorrectCredentials();
      if (!user.Enabled) throw fault.userDisabled();
      if (user.UserStatus === "UNCONFIRMED") throw fault.userNotConfirmed();
      if (user.UserStatus === "RESET_REQUIRED") throw fault.passwordResetRequired();
      if (
        user.UserStatus === "FORCE_CHANGE_PASSWORD" &&
        temporaryPasswordExpired(user, pool.options.Policies?.PasswordPolicy, services.clock.get())
      ) {
        throw fault.temporaryPasswordExpired();
      }
      if (user.UserStatus === "FORCE_CHANGE_PASSWORD" && admin) {
        // cognito-local's AdminInitiateAuth would hand out tokens here; Cognito asks for a new password, with a
        // Session bound to this user that AdminRespondToAuthChallenge must bring back.
        const session = challengeSessions.issue(
          { userPoolId: pool.options.Id, clientId: client.ClientId, username: user.Username },
          client.AuthSessionValidity ?? DEFAULT_AUTH_SESSION_VALIDITY_MINUTES,
        );
        return {
          reply: {
            ChallengeName: "NEW_PASSWORD_REQUIRED",
            ChallengeParameters: {
              USER_ID_FOR_SRP: user.Username,
              requiredAttributes: "[]",
              userAttributes: JSON.stringify(
                Object.fromEntries(user.Attributes.filter((a) => a.Name !== "sub").map((a) => [a.Name, a.Value])),
              ),
            },
            Session: session,
          },
        };
      }
      const mfa = softwareTokens.challenge(pool, client, user);
      if (mfa) return { reply: mfa };
      return { user, pool };
    }
    if (flow === "USER_AUTH" && admin) {
      if (!text(parameters.USERNAME)) throw fault.invalidParameter("Missing required parameter USERNAME");
      const user = await findUser(pool, parameters.USERNAME);
      if (!user) throw preventsExistenceErrors(client) ? fault.incorrectCredentials() : fault.userNotFound();
      if (!user.Enabled) throw fault.userDisabled();
      return { reply: await passkeys.initiate(pool, client, user, parameters) };
    }
    if (flow === "REFRESH_TOKEN_AUTH" || flow === "REFRESH_TOKEN") {
      const token = parameters.REFRESH_TOKEN;
      if (!text(token)) throw fault.invalidParameter("Missing required parameter REFRESH_TOKEN");
      const claims = verifiedClaims(token);
      const origin = originOfRefreshToken(token);
      if (!claims || !origin) throw fault.invalidRefreshToken();
      const user = await pool.getUserByRefreshToken(ctx, token as string);
      if (!user) {
        const owner = await findUser(pool, claims["cognito:username"]);
        throw owner?.HarnessRevokedOrigins?.includes(origin)
          ? fault.refreshTokenRevoked()
          : fault.invalidRefreshToken();
      }
      if (typeof claims.exp === "number" && claims.exp * 1000 <= Date.now()) throw fault.refreshTokenExpired();
      if (!user.Enabled) throw fault.userDisabled();
      return { user, pool, origin, ...(typeof claims.iat === "number" ? { authTime: claims.iat } : {}) };
    }
    return undefined;
  }

  /** The tokens of a sign-in the harness completes itself (a challenge answered), shaped as every sign-in's are. */
  async function issueTokens(
    pool: LocalUserPool,
    client: LocalAppClient,
    user: LocalUser,
    clientMetadata?: unknown,
  ): Promise<Body> {
    const groups = await pool.listUserGroupMembership(ctx, user);
    const tokens = await services.tokenGenerator.generate(
      ctx,
      user,
      groups,
      client,
      clientMetadata as Record<string, string> | undefined,
      "Authentication",
    );
    await pool.storeRefreshToken(ctx, tokens.RefreshToken, user);
    const signedIn = await findUser(pool, user.Username);
    return shapeAuthenticationResult(
      { AccessToken: tokens.AccessToken, IdToken: tokens.IdToken, RefreshToken: tokens.RefreshToken },
      { originJti: originOfRefreshToken(tokens.RefreshToken), user: signedIn },
    );
  }

  const passkeys = createPasskeys({
    now: () => services.clock.get(),
    save: (pool, user) => save(pool, user),
    issueTokens: (pool, client, user) => issueTokens(pool, client, user),
  });

  async function shapeAuthentication(result: Body, prepared: Prepared): Promise<Body> {
    const authentication = result.AuthenticationResult as Body | undefined;
    if (!authentication) return result;
    const origin = prepared.origin ?? originOfRefreshToken(authentication.RefreshToken);
    const user = prepared.user && prepared.pool ? await findUser(prepared.pool, prepared.user.Username) : null;
    return {
      ...result,
      AuthenticationResult: shapeAuthenticationResult(authentication, {
        originJti: origin,
        user,
        authTime: prepared.authTime,
      }),
    };
  }

  /** CreateUserPoolClient and UpdateUserPoolClient: the rotation setting kept, the answer shaped as Cognito's. */
  const clientWrite: Operation = {
    async after(body, result) {
      await keepRefreshTokenRotation(body, result);
      return { ...result, UserPoolClient: await describedClient(result.UserPoolClient as Body | undefined) };
    },
  };

  const operations: Record<string, Operation> = {
    ...softwareTokens.operations,

    SignUp: {
      async before(body) {
        const pool = await poolOf(await appClient(body.ClientId));
        assertPasswordConforms(body.Password, pool.options.Policies?.PasswordPolicy);
        if (await findUser(pool, body.Username)) {
          const byEmail = pool.options.UsernameAttributes?.includes("email");
          throw new CognitoFault(
            "UsernameExistsException",
            byEmail ? "An account with the given email already exists." : "User already exists",
          );
        }
      },
      async after(_body, result) {
        return { ...result, CodeDeliveryDetails: maskDelivery(result.CodeDeliveryDetails) };
      },
    },

    ConfirmSignUp: {
      async before(body) {
        const client = await appClient(body.ClientId);
        const pool = await poolOf(client);
        const user = await findUser(pool, body.Username);
        if (!user) throw preventsExistenceErrors(client) ? fault.codeMismatch() : fault.usernameClientNotFound();
        if (user.UserStatus !== "UNCONFIRMED") {
          throw new CognitoFault(
            "NotAuthorizedException",
            `User cannot be confirmed. Current status is ${user.UserStatus}`,
          );
        }
        if (!user.ConfirmationCode) {
          throw new CognitoFault("ExpiredCodeException", "Invalid code provided, please request a code again.");
        }
        if (user.ConfirmationCode !== body.ConfirmationCode) throw fault.codeMismatch();
        return { user, pool };
      },
      async after(_body, result, { user, pool }) {
        // Confirming with the code Cognito sent to the e-mail address verifies that address.
        const confirmed = user && pool ? await findUser(pool, user.Username) : null;
        if (
          confirmed &&
          pool &&
          pool.options.AutoVerifiedAttributes?.includes("email") &&
          attribute(confirmed, "email")
        ) {
          await save(pool, { ...confirmed, Attributes: withAttribute(confirmed, "email_verified", "true") });
        }
        return result;
      },
    },

    ResendConfirmationCode: {
      async replace(body) {
        const client = await appClient(body.ClientId);
        const pool = await poolOf(client);
        const user = await findUser(pool, body.Username);
        if (!user) {
          if (preventsExistenceErrors(client)) return simulatedDelivery(body.Username);
          throw fault.usernameClientNotFound();
        }
        if (user.UserStatus !== "UNCONFIRMED") throw fault.invalidParameter("User is already confirmed.");
        const delivery = deliveryFor(pool, user);
        // A new code replaces the previous one, which stops working.
        const code = services.otp();
        await save(pool, { ...user, ConfirmationCode: code });
        await services.messages.deliver(
          ctx,
          "ResendCode",
          client.ClientId,
          pool.options.Id,
          user,
          code,
          body.ClientMetadata as Record<string, string> | undefined,
          delivery,
        );
        return { CodeDeliveryDetails: maskDelivery(delivery) };
      },
    },

    AdminInitiateAuth: {
      before: (body) => authenticate(body, true),
      after: (_body, result, prepared) => shapeAuthentication(result, prepared),
    },

    InitiateAuth: {
      before: (body) => authenticate(body, false),
      after: (_body, result, prepared) => shapeAuthentication(result, prepared),
    },

    RespondToAuthChallenge: {
      async before(body) {
        const client = await appClient(body.ClientId);
        const pool = await poolOf(client);
        if (body.ChallengeName === SOFTWARE_TOKEN_MFA) {
          return { reply: await softwareTokens.answer(pool, client, body) };
        }
        const responses = (body.ChallengeResponses ?? {}) as Record<string, unknown>;
        if (body.ChallengeName === "NEW_PASSWORD_REQUIRED") {
          assertPasswordConforms(responses.NEW_PASSWORD, pool.options.Policies?.PasswordPolicy);
        }
        return { pool, user: await findUser(pool, responses.USERNAME) };
      },
      after: (_body, result, prepared) => shapeAuthentication(result, prepared),
    },

    RevokeToken: {
      async replace(body) {
        const client = await appClient(body.ClientId);
        if (client.EnableTokenRevocation === false) {
          throw new CognitoFault("UnsupportedOperationException", "Token revocation is not enabled for this client.");
        }
        const pool = await poolOf(client);
        const token = text(body.Token);
        if (!token) throw fault.invalidParameter("Missing required parameter Token");
        const origin = originOfRefreshToken(token);
        const user = verifiedClaims(token) ? await pool.getUserByRefreshToken(ctx, token) : null;
        // An unknown or already revoked token is not an error (NotAuthorizedException is not among RevokeToken's).
        if (user && origin) {
          await save(
            pool,
            {
              ...user,
              RefreshTokens: (user.RefreshTokens ?? []).filter((item) => item !== token),
              HarnessRevokedOrigins: remember(user, [origin]),
            },
            false,
          );
        }
        return {};
      },
    },

    GlobalSignOut: {
      async replace(body) {
        const { pool, user } = await userOfAccessToken(body.AccessToken);
        await signOutEverywhere(pool, user);
        return {};
      },
    },

    AdminUserGlobalSignOut: {
      async replace(body) {
        const pool = await poolById(body.UserPoolId);
        const user = await findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        await signOutEverywhere(pool, user);
        return {};
      },
    },

    AdminDisableUser: {
      async before(body) {
        const pool = await poolById(body.UserPoolId);
        const user = await findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        return { pool, user };
      },
      async after(_body, result, { pool, user }) {
        // Cognito revokes the user's tokens when it deactivates the user.
        const disabled = pool && user ? await findUser(pool, user.Username) : null;
        if (pool && disabled) await signOutEverywhere(pool, disabled);
        return result;
      },
    },

    ForgotPassword: {
      async before(body) {
        const client = await appClient(body.ClientId);
        const pool = await poolOf(client);
        const user = await findUser(pool, body.Username);
        if (!user) {
          if (preventsExistenceErrors(client)) return { reply: simulatedDelivery(body.Username) };
          throw fault.usernameClientNotFound();
        }
        if (!user.Enabled) throw fault.userDisabled();
        // An invited user has no password of their own to reset: only AdminCreateUser's RESEND helps.
        if (user.UserStatus === "FORCE_CHANGE_PASSWORD") throw fault.passwordNotResettable();
        if (attribute(user, "email_verified") !== "true") {
          throw fault.invalidParameter(
            "Cannot reset password for the user as there is no registered/verified email or phone_number",
          );
        }
      },
      async after(_body, result) {
        return { ...result, CodeDeliveryDetails: maskDelivery(result.CodeDeliveryDetails) };
      },
    },

    ConfirmForgotPassword: {
      async before(body) {
        const client = await appClient(body.ClientId);
        const pool = await poolOf(client);
        assertPasswordConforms(body.Password, pool.options.Policies?.PasswordPolicy);
        const user = await findUser(pool, body.Username);
        if (!user) throw preventsExistenceErrors(client) ? fault.codeMismatch() : fault.usernameClientNotFound();
        if (
          user.UserStatus === "UNCONFIRMED" ||
          !user.ConfirmationCode ||
          user.ConfirmationCode !== body.ConfirmationCode
        ) {
          throw fault.codeMismatch();
        }
      },
    },

    ChangePassword: {
      async before(body) {
        const { pool, user } = await userOfAccessToken(body.AccessToken);
        if (user.Password !== body.PreviousPassword) throw fault.incorrectCredentials();
        assertPasswordConforms(body.ProposedPassword, pool.options.Policies?.PasswordPolicy);
      },
    },

    AdminSetUserPassword: {
      async before(body) {
        const pool = await poolById(body.UserPoolId);
        if (!(await findUser(pool, body.Username))) throw fault.userNotFound();
        assertPasswordConforms(body.Password, pool.options.Policies?.PasswordPolicy);
      },
    },

    AdminCreateUser: {
      async before(body) {
        const pool = await poolById(body.UserPoolId);
        const policy = pool.options.Policies?.PasswordPolicy;
        if (body.TemporaryPassword !== undefined) assertPasswordConforms(body.TemporaryPassword, policy);
        if (body.MessageAction === "RESEND") return { reply: await resendInvitation(pool, body) };
        if (await findUser(pool, body.Username)) {
          throw new CognitoFault("UsernameExistsException", "User account already exists");
        }
        const mailed = body.MessageAction !== "SUPPRESS";
        if (mailed) invitationDestination(body.DesiredDeliveryMediums, body.UserAttributes, body.Username);
        // cognito-local's own temporary password has 6 characters whatever the policy, and its welcome message has
        // no text: the harness chooses the password and sends the pool's invitation itself.
        return {
          pool,
          forwardBody: {
            ...body,
            TemporaryPassword: body.TemporaryPassword ?? generateTemporaryPassword(policy),
            MessageAction: "SUPPRESS",
          },
        };
      },
      async after(body, result, { pool, forwardBody }) {
        const created = result.User as { Username?: string } | undefined;
        const user = pool && created?.Username ? await findUser(pool, created.Username) : null;
        if (pool && user && body.MessageAction !== "SUPPRESS") {
          await deliverInvitation(pool, user, String(forwardBody?.TemporaryPassword), body);
        }
        return result;
      },
    },

    AdminRespondToAuthChallenge: {
      async replace(body) {
        const pool = await poolById(body.UserPoolId);
        const client = await appClient(body.ClientId);
        if (client.UserPoolId !== pool.options.Id) throw fault.invalidParameter("Invalid client id for the pool");
        if (body.ChallengeName === SOFTWARE_TOKEN_MFA) return softwareTokens.answer(pool, client, body);
        if (body.ChallengeName === "SELECT_CHALLENGE" || body.ChallengeName === "WEB_AUTHN") {
          const responses = (body.ChallengeResponses ?? {}) as Record<string, unknown>;
          if (!text(responses.USERNAME)) throw fault.invalidParameter("Missing required parameter USERNAME");
          return passkeys.respond(pool, client, await findUser(pool, responses.USERNAME), body);
        }
        if (body.ChallengeName !== "NEW_PASSWORD_REQUIRED") {
          throw new CognitoFault("StandInUnsupportedException", `ChallengeName ${String(body.ChallengeName)}`);
        }
        const responses = (body.ChallengeResponses ?? {}) as Record<string, unknown>;
        if (!text(responses.USERNAME)) throw fault.invalidParameter("Missing required parameter USERNAME");
        if (!text(responses.NEW_PASSWORD)) throw fault.invalidParameter("Missing required parameter NEW_PASSWORD");
        if (!text(body.Session)) throw fault.invalidParameter("Missing required parameter Session");
        const user = await findUser(pool, responses.USERNAME);
        const binding = user
          ? challengeSessions.find(body.Session, {
              userPoolId: pool.options.Id,
              clientId: client.ClientId,
              username: user.Username,
            })
          : null;
        if (!user || !binding || user.UserStatus !== "FORCE_CHANGE_PASSWORD") throw fault.challengeSessionExpired();
        if (!user.Enabled) throw fault.userDisabled();
        assertPasswordConforms(responses.NEW_PASSWORD, pool.options.Policies?.PasswordPolicy);
        challengeSessions.useUp(body.Session as string);
        const { HarnessInvitedAt: _invited, ...rest } = user;
        const confirmed: LocalUser = {
          ...rest,
          Password: responses.NEW_PASSWORD as string,
          UserStatus: "CONFIRMED",
          UserLastModifiedDate: services.clock.get(),
        };
        await pool.saveUser(ctx, confirmed);
        return signedIn(pool, client, confirmed, body.ClientMetadata);
      },
    },

    AdminUpdateUserAttributes: {
      async before(body) {
        const pool = await poolById(body.UserPoolId);
        const user = await findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        await assertEmailAvailable(pool, user, body.UserAttributes);
      },
    },

    UpdateUserAttributes: {
      async before(body) {
        const { pool, user } = await userOfAccessToken(body.AccessToken);
        await assertEmailAvailable(pool, user, body.UserAttributes);
      },
    },

    AdminListGroupsForUser: {
      async replace(body) {
        const pool = await poolById(body.UserPoolId);
        const user = await findUser(pool, body.Username);
        if (!user) throw fault.userNotFound();
        // cognito-local keeps members by internal username (the sub here); look them up by the user record.
        const names = new Set(await pool.listUserGroupMembership(ctx, user));
        const groups = (await pool.listGroups(ctx))
          .filter((group) => names.has(group.GroupName))
          .sort((a, b) => a.GroupName.localeCompare(b.GroupName));
        const { page, next } = pageOf(groups, pageLimit(body.Limit), body.NextToken);
        return {
          Groups: page.map((group) => groupResponse(pool.options.Id, group)),
          ...(next ? { NextToken: next } : {}),
        };
      },
    },

    CreateUserPoolClient: clientWrite,
    UpdateUserPoolClient: clientWrite,

    DescribeUserPoolClient: {
      async after(_body, result) {
        return { ...result, UserPoolClient: await describedClient(result.UserPoolClient as Body | undefined) };
      },
    },

    GetGroup: {
      async replace(body) {
        // cognito-local fails (500) in a pool that has no group yet; Cognito says ResourceNotFoundException.
        const pool = await poolById(body.UserPoolId);
        const group = (await pool.listGroups(ctx)).find((item) => item.GroupName === body.GroupName);
        if (!group) throw new CognitoFault("ResourceNotFoundException", "Group not found.");
        return { Group: groupResponse(pool.options.Id, group) };
      },
    },

    DescribeUserPool: {
      async after(body, result) {
        // A pool that never chose MFA has it off, and Cognito says so; its feature plan is one cognito-local drops.
        const pool = result.UserPool as Body | undefined;
        if (!pool) return result;
        const stored = await poolById(body.UserPoolId);
        return {
          ...result,
          UserPool: {
            ...pool,
            MfaConfiguration: pool.MfaConfiguration ?? "OFF",
            UserPoolTier: userPoolTier(stored.options),
          },
        };
      },
    },

    // cognito-local drops UserPoolTier: the harness keeps it in the pool's options.
    CreateUserPool: {
      async after(body, result) {
        const created = result.UserPool as Body | undefined;
        if (!created || typeof created.Id !== "string") return result;
        const pool = await poolById(created.Id);
        await pool.updateOptions(ctx, { ...pool.options, UserPoolTier: userPoolTier(body) });
        return { ...result, UserPool: { ...created, UserPoolTier: userPoolTier(body) } };
      },
    },

    UpdateUserPool: {
      async after(body, result) {
        const pool = await poolById(body.UserPoolId);
        if (text(body.UserPoolTier))
          await pool.updateOptions(ctx, { ...pool.options, UserPoolTier: body.UserPoolTier });
        return result;
      },
    },

    // cognito-local ignores WebAuthnConfiguration: the harness checks it first and keeps it in the pool's options.
    SetUserPoolMfaConfig: {
      async before(body) {
        mergedWebAuthnSettings((await poolById(body.UserPoolId)).options, body.WebAuthnConfiguration);
      },
      async after(body, result) {
        const pool = await poolById(body.UserPoolId);
        const WebAuthnConfiguration = mergedWebAuthnSettings(pool.options, body.WebAuthnConfiguration);
        await pool.updateOptions(ctx, { ...pool.options, WebAuthnConfiguration });
        return { ...result, WebAuthnConfiguration };
      },
    },

    GetUserPoolMfaConfig: {
      async after(body, result) {
        const pool = await poolById(body.UserPoolId);
        return { ...result, WebAuthnConfiguration: webAuthnSettings(pool.options) };
      },
    },

    StartWebAuthnRegistration: {
      async replace(body) {
        const { pool, user, clientId } = await userOfAccessToken(body.AccessToken);
        return passkeys.startRegistration(pool, user, clientId);
      },
    },

    CompleteWebAuthnRegistration: {
      async replace(body) {
        const { pool, user, clientId } = await userOfAccessToken(body.AccessToken);
        if (body.Credential === undefined) throw fault.invalidParameter("Missing required parameter Credential");
        return passkeys.completeRegistration(pool, user, clientId, body.Credential);
      },
    },

    ListWebAuthnCredentials: {
      async replace(body) {
        const { user } = await userOfAccessToken(body.AccessToken);
        return passkeys.list(user, body);
      },
    },

    DeleteWebAuthnCredential: {
      async replace(body) {
        const { pool, user } = await userOfAccessToken(body.AccessToken);
        return passkeys.remove(pool, user, body.CredentialId);
      },
    },

    ListUsers: {
      async replace(body) {
        const pool = await poolById(body.UserPoolId);
        return listUsersPage(await pool.listUsers(ctx), body);
      },
    },
  };

  for (const name of ACCESS_TOKEN_OPERATIONS) {
    operations[name] ??= {
      async before(body) {
        await userOfAccessToken(body.AccessToken);
      },
    };
  }

  // ---- forwarding and error shaping ----------------------------------------------------------------------------

  /** cognito-local's answer, with its error names and texts turned into Cognito's. */
  function correctedError(operation: string, status: number, body: Body): Reply {
    const type = text(body.__type) ?? "";
    const message = text(body.message) ?? "";
    if (type === "CognitoLocal#Unsupported") {
      // cognito-local answers 500, which the SDK retries: a stand-in gap is not a transient fault.
      logger.warn({ operation }, message);
      return { status: 400, body: { __type: "StandInUnsupportedException", message } };
    }
    if (status >= 500) {
      logger.error({ operation, body }, "cognito-local failed");
      return { status: 400, body: { __type: "StandInInternalException", message: message || "cognito-local failed" } };
    }
    const correct = (error: CognitoFault) => errorResponse(error);
    if (type === "InvalidPasswordException" && message === "Invalid password")
      return correct(fault.incorrectCredentials());
    if (type === "UserNotFoundException") return correct(fault.userNotFound());
    if (type === "CodeMismatchException") return correct(fault.codeMismatch());
    return { status, body };
  }

  async function forward(operation: string, target: string, raw: Buffer): Promise<{ status: number; body: Body }> {
    const response = await fetch(`${internalUrl}/`, {
      method: "POST",
      headers: { "content-type": JSON_CONTENT_TYPE, "x-amz-target": target },
      body: new Uint8Array(raw),
    });
    const payload = await response.text();
    let body: Body = {};
    try {
      body = payload ? (JSON.parse(payload) as Body) : {};
    } catch {
      body = { __type: "StandInInternalException", message: payload };
    }
    logger.debug({ operation, status: response.status }, "forwarded");
    return { status: response.status, body };
  }

  async function handleOperation(operation: string, target: string, raw: Buffer): Promise<Reply> {
    let body: Body;
    try {
      body = raw.length ? (JSON.parse(raw.toString("utf8")) as Body) : {};
    } catch {
      return errorResponse(new CognitoFault("SerializationException", "Malformed JSON body"));
    }
    const behaviour = operations[operation];
    try {
      if (behaviour?.replace) return { status: 200, body: await behaviour.replace(body) };
      const prepared = (await behaviour?.before?.(body)) ?? {};
      if (prepared.reply !== undefined) return { status: 200, body: prepared.reply };
      const forwarded = await forward(
        operation,
        target,
        prepared.forwardBody ? Buffer.from(JSON.stringify(prepared.forwardBody)) : raw,
      );
      if (forwarded.status !== 200) return correctedError(operation, forwarded.status, forwarded.body);
      const result = behaviour?.after ? await behaviour.after(body, forwarded.body, prepared) : forwarded.body;
      return { status: 200, body: result };
    } catch (error) {
      if (error instanceof CognitoFault) return errorResponse(error);
      if (isCognitoLocalError(error)) return { status: 400, body: { __type: error.code, message: error.message } };
      logger.error({ operation, err: error }, "stand-in harness failed");
      return errorResponse(new CognitoFault("StandInInternalException", String(error)));
    }
  }

  // ---- HTTP ----------------------------------------------------------------------------------------------------

  function send(response: ServerResponse, reply: Reply, contentType = JSON_CONTENT_TYPE): void {
    if (response.destroyed || response.writableEnded) return;
    const body = serialize(reply.body);
    const headers: Record<string, string> = {
      "content-type": contentType,
      "content-length": String(Buffer.byteLength(body)),
      "x-amzn-requestid": randomUUID(),
    };
    const type = reply.status >= 400 ? text((reply.body as Body | undefined)?.__type) : undefined;
    if (type) headers["x-amzn-errortype"] = `${type}:`;
    response.writeHead(reply.status, headers);
    response.end(body);
  }

  async function proxy(request: IncomingMessage, response: ServerResponse, raw: Buffer): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
    }
    const upstream = await fetch(`${internalUrl}${request.url ?? "/"}`, {
      method: request.method,
      headers,
      body: ["GET", "HEAD"].includes(request.method ?? "GET") ? undefined : new Uint8Array(raw),
      redirect: "manual",
    });
    const payload = Buffer.from(await upstream.arrayBuffer());
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!["content-encoding", "transfer-encoding", "connection", "content-length"].includes(name)) out[name] = value;
    });
    out["content-length"] = String(payload.length);
    response.writeHead(upstream.status, out);
    response.end(payload);
  }

  function openIdConfiguration(userPoolId: string) {
    const issuer = `${publicUrl}/${userPoolId}`;
    return {
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ["RS256"],
      subject_types_supported: ["public"],
      response_types_supported: ["code", "token"],
      token_endpoint: `${publicUrl}/oauth2/token`,
      authorization_endpoint: `${publicUrl}/oauth2/authorize`,
    };
  }

  async function control(request: IncomingMessage, response: ServerResponse, path: string, raw: Buffer) {
    const json = (status: number, body: unknown) => send(response, { status, body }, "application/json");
    const route = `${request.method} ${path.slice(HARNESS_PATH.length) || "/"}`;
    const deployed = /^PUT \/functions\/([A-Za-z0-9_-]+)$/.exec(route);
    if (deployed) {
      try {
        const { environment } = JSON.parse(raw.toString("utf8") || "{}") as { environment?: Record<string, string> };
        functions.configure(deployed[1]!, environment ?? {});
        return json(200, { function: deployed[1], environment });
      } catch (error) {
        return json(400, { error: String(error) });
      }
    }
    switch (route) {
      case "GET /faults":
        return json(200, switches.currentFault());
      case "POST /faults":
        try {
          return json(200, switches.setFault(JSON.parse(raw.toString("utf8") || "{}")));
        } catch (error) {
          const message =
            error instanceof InvalidFaultSettings || error instanceof SyntaxError ? error.message : String(error);
          return json(400, { error: message });
        }
      case "GET /requests":
        return json(200, switches.requestCounts());
      case "GET /requests/log":
        return json(200, { requests: switches.requestLog() });
      case "POST /users":
        try {
          return json(200, await seedUsers(JSON.parse(raw.toString("utf8") || "{}") as Body));
        } catch (error) {
          return json(400, { error: String(error) });
        }
      case "POST /users/invitation-age":
        try {
          return json(200, await ageInvitation(JSON.parse(raw.toString("utf8") || "{}") as Body));
        } catch (error) {
          return json(400, { error: String(error) });
        }
      case "POST /challenge-sessions/expire":
        return json(200, {
          expired: challengeSessions.expireAll() + softwareTokens.expireSessions() + passkeys.expireSessions(),
        });
      case "DELETE /requests":
        switches.resetCounts();
        return json(200, switches.requestCounts());
      case "POST /reset":
        switches.reset();
        return json(200, { fault: switches.currentFault(), requests: switches.requestCounts() });
      default:
        return json(404, { error: `No harness route ${route}` });
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", publicUrl);
    const raw = await readBody(request);
    if (url.pathname === HARNESS_PATH || url.pathname.startsWith(`${HARNESS_PATH}/`)) {
      return control(request, response, url.pathname, raw);
    }

    const target = request.headers["x-amz-target"];
    const isApi = request.method === "POST" && url.pathname === "/" && typeof target === "string";
    const wellKnown = /^\/([^/]+)\/\.well-known\/(jwks\.json|openid-configuration)$/.exec(url.pathname);
    const operation = isApi
      ? (target.split(".")[1] ?? target)
      : wellKnown
        ? wellKnown[2] === "jwks.json"
          ? JWKS_OPERATION
          : OPENID_CONFIGURATION_OPERATION
        : `${request.method} ${url.pathname}`;
    switches.count(operation);

    const active = switches.take(operation, isApi);
    const gone = new AbortController();
    response.on("close", () => gone.abort());
    if (active) {
      const delay = faultDelay(active);
      if (delay > 0) {
        await sleep(delay, gone.signal);
        // A client that gave up waiting has its request dropped, not carried out behind its back.
        if (gone.signal.aborted) return switches.noteDropped(active);
      }
      const error = faultError(active);
      if (error) return send(response, errorResponse(error));
    }

    if (isApi) {
      const answer = await handleOperation(operation, target, raw);
      const delay = active ? answerDelay(active) : 0;
      // Carried out, then answered late: a client that gave up waiting never hears that it was.
      if (delay > 0) await sleep(delay, gone.signal);
      if (gone.signal.aborted) return;
      return send(response, answer);
    }
    if (wellKnown?.[1] && wellKnown[2] === "openid-configuration") {
      return send(response, { status: 200, body: openIdConfiguration(wellKnown[1]) }, "application/json");
    }
    return proxy(request, response, raw);
  }

  return {
    switches,
    /** The node:http request listener of the front server. */
    listener(request: IncomingMessage, response: ServerResponse): void {
      handle(request, response).catch((error: unknown) => {
        logger.error({ err: error, url: request.url }, "stand-in harness request failed");
        if (!response.headersSent) {
          send(response, errorResponse(new CognitoFault("StandInInternalException", String(error))));
        } else {
          response.destroy();
        }
      });
    },
  };
}
