import { createHash } from "node:crypto";
import { errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "~/config.server";
import { cognitoIssuer, getJwks } from "./cognito-jwks.server";

export interface AccessTokenClaims {
  sub: string;
  groups: string[];
  expiresAt: Date;
  /** When Cognito issued it (`iat`); a refresh issues a new token with a new time. */
  issuedAt: Date;
  /**
   * When the member signed in with a password or a passkey (`auth_time`): a refresh keeps it, so it says how long
   * ago the person at the keyboard last proved who they are. Null when the token lacks it.
   */
  authTime: Date | null;
  /** Names the sign-in (refresh token) the token was issued from; null when Cognito's token revocation is off. */
  originJti: string | null;
}

export type AccessTokenCheck =
  | { valid: true; claims: AccessTokenClaims }
  | { valid: false; expired: boolean }
  /** The pool's keys could not be fetched (Cognito down or slow): nothing is known about the token. */
  | { valid: false; unverifiable: true };

const TOKEN_VERDICTS = new Set([
  "ERR_JWT_EXPIRED",
  "ERR_JWT_CLAIM_VALIDATION_FAILED",
  "ERR_JWT_INVALID",
  "ERR_JWS_INVALID",
  "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
  "ERR_JOSE_ALG_NOT_ALLOWED",
  "ERR_JOSE_NOT_SUPPORTED",
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
]);

/**
 * Tokens that passed, by a hash of the token and the pool and client they passed for, with their claims. A page
 * view checks its member's token on every request, and the RS256 signature check is the largest single cost of
 * a signed-in view that does it. A token that passed passes again until it expires: its claims cannot
 * change, and the pool's keys stay cached until a token names one we lack (cognito-jwks.server.ts). Whether a session
 * was revoked is the session row's question, asked on every request all the same. Only tokens that passed are
 * kept (no one fills this without signing in), at most VERIFIED_TOKENS_MAX, the oldest dropped first.
 */
const VERIFIED_TOKENS_MAX = 10_000;
const verifiedTokens = new Map<string, AccessTokenClaims>();

const verifiedTokenKey = (token: string, cognito: Config["cognito"], clientId: string) =>
  createHash("sha256")
    .update(`${cognitoIssuer(cognito)}\n${clientId}\n${token}`)
    .digest("base64url");

/** As jose decides expiry: in whole seconds, expired from the second of `exp` on. */
const hasExpired = (claims: AccessTokenClaims) => Math.floor(Date.now() / 1000) * 1000 >= claims.expiresAt.getTime();

/**
 * Verifies a Cognito access token locally, against the pool's cached JWKS: signature (RS256 only, so `alg:none`
 * and HMAC tricks fail), issuer, expiry, `token_use` and the app client: the members' unless the caller names the
 * staff client (a token of one client never passes for the other). No call to Cognito.
 */
export async function verifyAccessToken(
  token: string,
  cognito: Config["cognito"],
  clientId: string = cognito.clientId,
): Promise<AccessTokenCheck> {
  const key = verifiedTokenKey(token, cognito, clientId);
  const known = verifiedTokens.get(key);
  if (known && !hasExpired(known)) return { valid: true, claims: known };
  verifiedTokens.delete(key);
  const check = await verifySignedToken(token, cognito, clientId);
  if (check.valid) {
    if (verifiedTokens.size >= VERIFIED_TOKENS_MAX) verifiedTokens.delete(verifiedTokens.keys().next().value!);
    verifiedTokens.set(key, check.claims);
  }
  return check;
}

async function verifySignedToken(
  token: string,
  cognito: Config["cognito"],
  clientId: string,
): Promise<AccessTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, getJwks(cognito), {
      issuer: cognitoIssuer(cognito),
      algorithms: ["RS256"],
    });
    if (payload.token_use !== "access" || payload.client_id !== clientId || typeof payload.sub !== "string") {
      return { valid: false, expired: false };
    }
    const groups = Array.isArray(payload["cognito:groups"]) ? payload["cognito:groups"].map(String) : [];
    return {
      valid: true,
      claims: {
        sub: payload.sub,
        groups,
        expiresAt: new Date((payload.exp ?? 0) * 1000),
        issuedAt: new Date((payload.iat ?? 0) * 1000),
        authTime: typeof payload.auth_time === "number" ? new Date(payload.auth_time * 1000) : null,
        originJti: typeof payload.origin_jti === "string" ? payload.origin_jti : null,
      },
    };
  } catch (error) {
    // Only these are verdicts on the token; anything else (the key set's fetch failed or timed out) is not.
    if (!(error instanceof joseErrors.JOSEError) || !TOKEN_VERDICTS.has(error.code)) {
      return { valid: false, unverifiable: true };
    }
    return { valid: false, expired: error instanceof joseErrors.JWTExpired };
  }
}
