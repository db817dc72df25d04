/**
 * Tokens as Cognito issues them, on top of cognito-local's: the same RS256 key (so the JWKS it serves still
 * verifies them), Cognito's default lifetimes, `origin_jti` linking access and ID tokens to the refresh token of
 * their sign-in (what RevokeToken revokes), and the user's standard attributes in the ID token.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { createRequire } from "node:module";
import type { PreTokenGenerationEvent } from "~/integrations/cognito/pre-token-generation";
import type {
  AttributeType,
  Ctx,
  LocalAppClient,
  LocalCognitoService,
  LocalTokenGenerator,
  LocalUser,
} from "./cognito-local";
import { CognitoFault } from "./errors";
import type { LambdaFunctions } from "./lambda-functions";

const require = createRequire(import.meta.url);

let keys: { privateKey: KeyObject; publicKey: KeyObject } | undefined;
function signingKeys() {
  keys ??= {
    privateKey: createPrivateKey((require("cognito-local/lib/keys/cognitoLocal.private.json") as { pem: string }).pem),
    publicKey: createPublicKey((require("cognito-local/lib/keys/cognitoLocal.public.json") as { pem: string }).pem),
  };
  return keys;
}

/** Cognito's defaults for an app client that names no lifetimes: access and ID tokens 60 minutes, refresh 30 days. */
export const DEFAULT_ACCESS_TOKEN_MINUTES = 60;
export const DEFAULT_ID_TOKEN_MINUTES = 60;
export const DEFAULT_REFRESH_TOKEN_DAYS = 30;

export type JwtClaims = Record<string, unknown> & { exp?: number; iat?: number; jti?: string; token_use?: string };

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString("base64url");
}

/** The claims of a JWT without checking its signature; null when it is not a JWT. */
export function decodeClaims(token: unknown): JwtClaims | null {
  if (typeof token !== "string") return null;
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    return claims && typeof claims === "object" ? (claims as JwtClaims) : null;
  } catch {
    return null;
  }
}

/** The claims of a JWT whose RS256 signature is the stand-in's; null otherwise. Expiry is the caller's to judge. */
export function verifiedClaims(token: unknown): JwtClaims | null {
  if (typeof token !== "string") return null;
  const [header, payload, signature] = token.split(".");
  if (!header || !payload || !signature) return null;
  const ok = verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    signingKeys().publicKey,
    Buffer.from(signature, "base64url"),
  );
  return ok ? decodeClaims(token) : null;
}

/** Signs `claims` anew with the stand-in's key, keeping the original header (alg RS256, kid CognitoLocal). */
function resign(token: string, claims: JwtClaims): string {
  const header = token.split(".")[0] ?? base64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid: "CognitoLocal" }));
  const input = `${header}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign("sha256", Buffer.from(input), signingKeys().privateKey))}`;
}

/** The ID token claims Cognito derives from user attributes: every attribute, `*_verified` ones as booleans. */
function attributeClaims(attributes: AttributeType[]): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const { Name, Value } of attributes) {
    if (Value === undefined || Name === "sub") continue;
    claims[Name] = Name.endsWith("_verified") ? Value === "true" : Value;
  }
  return claims;
}

/**
 * Rewrites an authentication result the way Cognito shapes it: access and ID tokens carry `origin_jti` (the jti of
 * the refresh token of the sign-in they belong to), the ID token carries the user's attributes, and the result
 * states `ExpiresIn` (the access token's lifetime in seconds, from its own exp − iat) and `TokenType: "Bearer"`.
 * `auth_time` is the sign-in's time: cognito-local stamps the issue time, which is right for a sign-in; a refresh
 * passes its sign-in's (`authTime`), as Cognito keeps it ("the time when the authentication occurred").
 */
export function shapeAuthenticationResult(
  result: Record<string, unknown>,
  options: { originJti: string | undefined; user: LocalUser | null; authTime?: number },
): Record<string, unknown> {
  const shaped: Record<string, unknown> = { ...result };
  const access = typeof result.AccessToken === "string" ? result.AccessToken : undefined;
  const id = typeof result.IdToken === "string" ? result.IdToken : undefined;
  const signedInAt = options.authTime === undefined ? {} : { auth_time: options.authTime };
  const accessClaims = decodeClaims(access);
  if (access && accessClaims) {
    const claims = {
      ...accessClaims,
      ...signedInAt,
      ...(options.originJti ? { origin_jti: options.originJti } : {}),
    };
    shaped.AccessToken = resign(access, claims);
    if (typeof claims.exp === "number" && typeof claims.iat === "number") shaped.ExpiresIn = claims.exp - claims.iat;
  }
  const idClaims = decodeClaims(id);
  if (id && idClaims) {
    const fromAttributes = options.user ? attributeClaims(options.user.Attributes) : {};
    shaped.IdToken = resign(id, {
      ...fromAttributes,
      ...idClaims,
      ...signedInAt,
      ...(options.user ? { email_verified: fromAttributes.email_verified === true } : {}),
      ...(options.originJti ? { origin_jti: options.originJti } : {}),
    });
  }
  shaped.TokenType = "Bearer";
  if (shaped.RefreshToken === undefined || shaped.RefreshToken === null) delete shaped.RefreshToken;
  return shaped;
}

/** The refresh token's jti, which is the `origin_jti` of every access and ID token of its sign-in. */
export function originOfRefreshToken(refreshToken: unknown): string | undefined {
  const jti = decodeClaims(refreshToken)?.jti;
  return typeof jti === "string" ? jti : undefined;
}

/** The access and ID token lifetime a test asks the stand-in for (STANDIN_ACCESS_TOKEN_TTL_S), if it is valid. */
export function accessTokenLifetimeFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new Error(`STANDIN_ACCESS_TOKEN_TTL_S must be a whole number of seconds ≥ 1, not "${value}"`);
  }
  return seconds;
}

/**
 * cognito-local's token generator with Cognito's default lifetimes for app clients that name none
 * (cognito-local's own fallback is 24 hours for access and ID tokens, 7 days for refresh tokens).
 * `accessTokenSeconds` replaces the default access and ID token lifetime (60 minutes), so tests can see tokens
 * expire (STANDIN_ACCESS_TOKEN_TTL_S); an app client that names its own lifetimes keeps them.
 */
export function withCognitoTokenLifetimes(
  generator: LocalTokenGenerator,
  options: { accessTokenSeconds?: number } = {},
): LocalTokenGenerator {
  const { accessTokenSeconds } = options;
  return {
    generate(ctx, user, groups, client, metadata, source) {
      const units = { ...client.TokenValidityUnits };
      const effective: LocalAppClient = { ...client, TokenValidityUnits: units };
      if (client.AccessTokenValidity === undefined) {
        effective.AccessTokenValidity = accessTokenSeconds ?? DEFAULT_ACCESS_TOKEN_MINUTES;
        units.AccessToken = accessTokenSeconds ? "seconds" : "minutes";
      }
      if (client.IdTokenValidity === undefined) {
        effective.IdTokenValidity = accessTokenSeconds ?? DEFAULT_ID_TOKEN_MINUTES;
        units.IdToken = accessTokenSeconds ? "seconds" : "minutes";
      }
      if (client.RefreshTokenValidity === undefined) {
        effective.RefreshTokenValidity = DEFAULT_REFRESH_TOKEN_DAYS;
        units.RefreshToken = "days";
      }
      return generator.generate(ctx, user, groups, effective, metadata, source);
    },
  };
}

/**
 * A trigger's failure as cognito-local's own error class: token generation runs inside cognito-local for the flows
 * it handles, and its server answers anything else as a 500.
 */
export async function invokeAsCognitoLocal<T>(invoke: () => Promise<T>): Promise<T> {
  try {
    return await invoke();
  } catch (error) {
    if (!(error instanceof CognitoFault)) throw error;
    const { CognitoError } = require("cognito-local/lib/errors") as {
      CognitoError: new (code: string, message: string) => Error;
    };
    throw new CognitoError(error.type, error.message);
  }
}

/** The trigger versions that customize access tokens (V1_0 customizes the ID token only). */
const ACCESS_TOKEN_TRIGGER_VERSIONS = ["V2_0", "V3_0"];

/** The scope claim after a V2_0 answer: suppressed scopes go, added ones join; a scope both added and suppressed goes. */
export function customizedScope(
  scope: string,
  overrides: { scopesToAdd?: unknown; scopesToSuppress?: unknown },
): string {
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((item) => typeof item === "string") : []);
  const suppressed = new Set(list(overrides.scopesToSuppress));
  const scopes = [...new Set([...scope.split(" ").filter(Boolean), ...list(overrides.scopesToAdd)])];
  return scopes.filter((item) => !suppressed.has(item)).join(" ");
}

/**
 * The pool's pre token generation trigger, as Cognito runs it: when the pool's LambdaConfig names a V2_0 (or V3_0)
 * PreTokenGenerationConfig, every token generation (sign-in, challenge answered, refresh) invokes the function with
 * the V2_0 event (`callerContext.clientId`, the user's attributes and groups, the access token's scopes), and its
 * `accessTokenGeneration.scopesToAdd` / `scopesToSuppress` change the access token's `scope` claim. Only the scope
 * customization is implemented (what this app's trigger answers); any other customization is refused rather than
 * silently ignored. A function that fails fails the sign-in (Cognito: UnexpectedLambdaException).
 */
export function withPreTokenGeneration(
  generator: LocalTokenGenerator,
  options: { cognito: LocalCognitoService; functions: LambdaFunctions; region?: string },
): LocalTokenGenerator {
  return {
    async generate(ctx: Ctx, user, groups, client, metadata, source) {
      const tokens = await generator.generate(ctx, user, groups, client, metadata, source);
      const pool = await options.cognito.getUserPool(ctx, client.UserPoolId);
      const config = (pool.options.LambdaConfig as { PreTokenGenerationConfig?: Record<string, unknown> } | undefined)
        ?.PreTokenGenerationConfig;
      const arn = typeof config?.LambdaArn === "string" ? config.LambdaArn : undefined;
      if (!arn || !ACCESS_TOKEN_TRIGGER_VERSIONS.includes(String(config?.LambdaVersion))) return tokens;
      const claims = decodeClaims(tokens.AccessToken);
      if (!claims) return tokens;
      const scope = typeof claims.scope === "string" ? claims.scope : "";
      const event: PreTokenGenerationEvent = {
        version: "2",
        triggerSource: `TokenGeneration_${source}`,
        region: options.region ?? "ap-northeast-1",
        userPoolId: client.UserPoolId,
        userName: user.Username,
        callerContext: { awsSdkVersion: "aws-sdk-unknown-unknown", clientId: client.ClientId },
        request: {
          userAttributes: Object.fromEntries(user.Attributes.map(({ Name, Value }) => [Name, Value ?? ""])),
          groupConfiguration: { groupsToOverride: groups, iamRolesToOverride: [], preferredRole: null },
          scopes: scope.split(" ").filter(Boolean),
          clientMetadata: metadata ?? {},
        },
        response: { claimsAndScopeOverrideDetails: null },
      };
      const answer =
        (await invokeAsCognitoLocal(() => options.functions.invoke(arn, event))).response
          .claimsAndScopeOverrideDetails ?? {};
      const { accessTokenGeneration, ...others } = answer;
      const { scopesToAdd, scopesToSuppress, ...otherAccess } = accessTokenGeneration ?? {};
      if (Object.keys(others).length > 0 || Object.keys(otherAccess).length > 0) {
        throw new CognitoFault(
          "StandInUnsupportedException",
          "The stand-in applies only accessTokenGeneration.scopesToAdd and scopesToSuppress of a pre token generation answer",
        );
      }
      return {
        ...tokens,
        AccessToken: resign(tokens.AccessToken, {
          ...claims,
          scope: customizedScope(scope, { scopesToAdd, scopesToSuppress }),
        }),
      };
    },
  };
}
