import type { Database } from "~db/client.server";
import type { Config, SiblingService } from "~/config.server";
import { feedServiceOf } from "~/domain/events/event-feed.server";
import type { SiblingEventsSettings } from "~/domain/events/event-publishing.server";
import { tokenStanding } from "~/domain/sessions/api-token-standing.server";
import { type AccessTokenCheck, verifyAccessToken } from "~/integrations/cognito/access-token.server";
import { ApiError } from "./api-response.server";

/** The member a bearer token speaks for. */
export interface ApiMember {
  sub: string;
  groups: string[];
  /** The token's sign-in: marks the caller's own device in lists and keeps it in clean-ups. */
  originJti: string | null;
  /** When the person signed in (the token's `auth_time`, kept across refreshes); null when the token lacks it. */
  authTime: Date | null;
  /** When Cognito issued the token (`iat`), with the groups it names. */
  issuedAt: Date;
  accessToken: string;
}

/** Whose tokens an endpoint takes: the members' app client's, or the staff app client's (the admin API). */
export type BearerClient = "member" | "staff";

const BEARER = /^Bearer\s+([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)\s*$/;
/** A service's feed token: whatever was configured (the configuration sets only its length). */
const SERVICE_BEARER = /^Bearer\s+(\S+)\s*$/;

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
 *
 * Each API takes one app client's tokens: the members' API the members' client's (a staff-client token is 401 there,
 * as any token of another client), the admin API the staff client's. A members' token sent to the admin API is
 * 403 `staff_token_required` rather than 401: it is a good token, refreshing it would not help, and the caller
 * (often a staff member's own script) is told which token to get. The members' token travels in the cookie every
 * sibling host receives; staff power must not ride on it (docs/security.md, "Threat model: the shared parent-domain
 * cookie").
 */
export async function authenticateBearer(
  request: Request,
  deps: { db: Database; cognito: Config["cognito"]; client?: BearerClient },
): Promise<ApiMember> {
  const header = request.headers.get("Authorization");
  if (!header) throw unauthorized("missing");
  const token = BEARER.exec(header)?.[1];
  if (!token) throw unauthorized("invalid");
  const clientId = deps.client === "staff" ? deps.cognito.staffClientId : deps.cognito.clientId;
  // No staff client configured (a development setup naming only the members'): the admin API takes no token at all.
  const check: AccessTokenCheck = clientId
    ? await verifyAccessToken(token, deps.cognito, clientId)
    : { valid: false, expired: false };
  if (!check.valid) {
    if ("unverifiable" in check) throw new ApiError("service_unavailable", { headers: { "Retry-After": "10" } });
    if (deps.client === "staff" && !check.expired && (await verifyAccessToken(token, deps.cognito)).valid) {
      throw new ApiError("staff_token_required");
    }
    throw unauthorized("invalid");
  }
  const standing = await tokenStanding(deps.db, check.claims);
  if (standing === "ended" || standing === "cancelled" || standing === "disabled") throw unauthorized("invalid");
  return {
    sub: check.claims.sub,
    groups: check.claims.groups,
    originJti: check.claims.originJti,
    authTime: check.claims.authTime,
    issuedAt: check.claims.issuedAt,
    accessToken: token,
  };
}

/**
 * A sibling service's own credential (SERVICE_FEED_TOKENS_<S>), for the endpoints that speak for no member (the
 * event feed): the service whose token it is, compared in constant time against every configured token
 * (feedServiceOf). A member's access token, another service's old token or none at all is 401, the same answer.
 */
export function authenticateService(request: Request, settings: SiblingEventsSettings): SiblingService {
  const header = request.headers.get("Authorization");
  if (!header) throw unauthorized("missing");
  const token = SERVICE_BEARER.exec(header)?.[1];
  const service = token ? feedServiceOf(settings, token) : null;
  if (!service) throw unauthorized("invalid");
  return service;
}
