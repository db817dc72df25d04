import type { Database } from "../../db/client.server";
import type { Config } from "~/config.server";
import { tokenStanding } from "~/domain/sessions/api-token-standing.server";
import { verifyAccessToken } from "~/integrations/cognito/access-token.server";
import { ApiError } from "./api-response.server";

/** The member a bearer token speaks for. */
export interface ApiMember {
  sub: string;
  groups: string[];
  /** The token's sign-in: marks the caller's own device in lists and keeps it in clean-ups. */
  originJti: string | null;
  accessToken: string;
}

const BEARER = /^Bearer\s+([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)\s*$/;

/** RFC 6750: a 401 says which scheme to use and why the token failed. */
function unauthorized(reason: "missing" | "invalid"): ApiError {
  const challenge =
    reason === "missing" ? 'Bearer realm="member-api"' : 'Bearer realm="member-api", error="invalid_token"';
  return new ApiError("unauthorized", { headers: { "WWW-Authenticate": challenge } });
}

/**
 * The access token is verified locally against the pool's cached JWKS (RS256 only, issuer, app
 * client, token_use "access", expiry: app/integrations/cognito/access-token.server.ts), then its sign-in is looked
 * up once: a token whose session was ended, or of a cancelled or disabled member, is refused although its signature still
 * holds. No Cognito call. Keys that cannot be fetched are "temporarily unavailable" (503), not a verdict on the token.
 */
export async function authenticateBearer(
  request: Request,
  deps: { db: Database; cognito: Config["cognito"] },
): Promise<ApiMember> {
  const header = request.headers.get("Authorization");
  if (!header) throw unauthorized("missing");
  const token = BEARER.exec(header)?.[1];
  if (!token) throw unauthorized("invalid");
  const check = await verifyAccessToken(token, deps.cognito);
  if (!check.valid) {
    if ("unverifiable" in check) throw new ApiError("service_unavailable", { headers: { "Retry-After": "10" } });
    throw unauthorized("invalid");
  }
  const standing = await tokenStanding(deps.db, check.claims);
  if (standing === "ended" || standing === "cancelled" || standing === "disabled") throw unauthorized("invalid");
  return {
    sub: check.claims.sub,
    groups: check.claims.groups,
    originJti: check.claims.originJti,
    accessToken: token,
  };
}
