import { errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "~/config.server";
import { cognitoIssuer, getJwks } from "./jwks.server";

export interface AccessTokenClaims {
  sub: string;
  groups: string[];
  expiresAt: Date;
}

export type AccessTokenCheck = { valid: true; claims: AccessTokenClaims } | { valid: false; expired: boolean };

/**
 * Verifies a Cognito access token locally, against the pool's cached JWKS: signature (RS256 only, so `alg:none`
 * and HMAC tricks fail), issuer, expiry, `token_use` and the app client. No call to Cognito.
 */
export async function verifyAccessToken(token: string, cognito: Config["cognito"]): Promise<AccessTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, getJwks(cognito), {
      issuer: cognitoIssuer(cognito),
      algorithms: ["RS256"],
    });
    if (payload.token_use !== "access" || payload.client_id !== cognito.clientId || typeof payload.sub !== "string") {
      return { valid: false, expired: false };
    }
    const groups = Array.isArray(payload["cognito:groups"]) ? payload["cognito:groups"].map(String) : [];
    return { valid: true, claims: { sub: payload.sub, groups, expiresAt: new Date((payload.exp ?? 0) * 1000) } };
  } catch (error) {
    return { valid: false, expired: error instanceof joseErrors.JWTExpired };
  }
}
