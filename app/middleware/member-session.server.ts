import { type MiddlewareFunction, type RouterContextProvider, createContext, data } from "react-router";
import { isDatabaseUnavailable } from "../../db/client.server";
import { endSession, findLiveSession, type LiveSession, openRefreshToken } from "~/domain/member-session.server";
import { verifyAccessToken } from "~/integrations/cognito/access-token.server";
import { IdentityError, type IdentityErrorCode } from "~/integrations/cognito/cognito-errors.server";
import { logger } from "~/integrations/logger.server";
import { type AppServices, servicesOf } from "~/services.server";
import { clearSessionCookie, readSessionCookie, serializeSessionCookie } from "./session-cookies.server";

export interface SignedInMember {
  sub: string;
  email: string;
  familyName: string | null;
  givenName: string | null;
  groups: string[];
  sessionId: string;
  accessToken: string;
}

export const memberContext = createContext<SignedInMember | null>(null);
/** Set when the database could not be asked whose session the cookie names: the member is unknown, not absent. */
const databaseUnavailableContext = createContext<boolean>(false);

/** The answer for a page that needs the database while it is down: the layouts' 503 page (SECURITY.md 16). */
export function serviceUnavailable(): never {
  throw data(null, { status: 503, headers: { "Retry-After": "30" } });
}

/**
 * The signed-in member of this request, or null. When the database was down at the session check the member is
 * unknown, and a loader or action asking is answered with the 503 page rather than treated as signed out.
 */
export function getMember(context: Readonly<RouterContextProvider>): SignedInMember | null {
  if (context.get(databaseUnavailableContext)) serviceUnavailable();
  return context.get(memberContext);
}

/**
 * The member for the frame (header, user menu), which must render even on the 503 page: null when unknown. And
 * whether the database was down at the session check, for the layouts' fault handling.
 */
export function peekMember(context: Readonly<RouterContextProvider>): {
  member: SignedInMember | null;
  databaseUnavailable: boolean;
} {
  return { member: context.get(memberContext), databaseUnavailable: context.get(databaseUnavailableContext) };
}

type Resolution =
  | { kind: "member"; member: SignedInMember; refreshedCookie?: string }
  | { kind: "signedOut" }
  /** Cognito could not answer (down, slow, throttling): anonymous for this request, the session kept for the next. */
  | { kind: "unverified" }
  /** The database could not answer: the member is unknown; pages answer 503 and the session is kept. */
  | { kind: "databaseUnavailable" };

/**
 * Refresh failures that say nothing about the refresh token: Cognito down, slow or throttling (TooManyRequests,
 * LimitExceeded). The session must survive them (SECURITY.md 15); ending it would sign the member out for good
 * because Cognito was busy for a moment.
 */
const TRANSIENT_REFRESH_FAILURES: ReadonlySet<IdentityErrorCode> = new Set([
  "unavailable",
  "throttled",
  "signInThrottled",
]);

function toMember(session: LiveSession, groups: string[], accessToken: string): SignedInMember {
  return {
    sub: session.sub,
    email: session.email,
    familyName: session.familyName,
    givenName: session.givenName,
    groups,
    sessionId: session.id,
    accessToken,
  };
}

/**
 * A page view costs no Cognito call: the access token is verified locally (cached JWKS) and the session row is
 * read once. Only an expired access token costs one refresh. A revoked or unknown session, a token that is not
 * ours or a refused refresh all end in "signed out", and the cookie is removed.
 */
async function resolveMember(
  { config, db, identity }: AppServices,
  sid: string,
  accessToken: string,
): Promise<Resolution> {
  const [check, session] = await Promise.all([verifyAccessToken(accessToken, config.cognito), findLiveSession(db, sid)]);
  if (!session) return { kind: "signedOut" };
  if (check.valid) {
    return check.claims.sub === session.sub
      ? { kind: "member", member: toMember(session, check.claims.groups, accessToken) }
      : { kind: "signedOut" };
  }
  if ("unverifiable" in check) return { kind: "unverified" };
  if (!check.expired) return { kind: "signedOut" };

  const refreshToken = openRefreshToken(session, config.sessionSecrets);
  if (!refreshToken) return { kind: "signedOut" };
  try {
    const tokens = await identity.refresh(refreshToken);
    const refreshed = await verifyAccessToken(tokens.accessToken, config.cognito);
    if (!refreshed.valid || refreshed.claims.sub !== session.sub) return { kind: "signedOut" };
    return {
      kind: "member",
      member: toMember(session, refreshed.claims.groups, tokens.accessToken),
      refreshedCookie: await serializeSessionCookie({ sid, at: tokens.accessToken }),
    };
  } catch (error) {
    if (error instanceof IdentityError && TRANSIENT_REFRESH_FAILURES.has(error.code)) {
      logger.warn({ err: error, code: error.code }, "could not refresh a session: Cognito unavailable or throttling");
      return { kind: "unverified" };
    }
    // Cognito refused the refresh token (revoked, expired, user disabled): this session is over.
    await endSession(db, sid);
    return { kind: "signedOut" };
  }
}

export const memberSessionMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const cookie = await readSessionCookie(request);
  if (!cookie) {
    context.set(memberContext, null);
    return next();
  }
  const resolution = await resolveMember(servicesOf(context), cookie.sid, cookie.at).catch((error: unknown): Resolution => {
    if (!isDatabaseUnavailable(error)) throw error;
    // Thrown from here, the error would reach only the root's bare last-resort page; the layouts answer 503.
    logger.warn({ err: error }, "database unavailable at the session check");
    return { kind: "databaseUnavailable" };
  });
  context.set(databaseUnavailableContext, resolution.kind === "databaseUnavailable");
  context.set(memberContext, resolution.kind === "member" ? resolution.member : null);
  const response = await next();
  if (resolution.kind === "member") {
    // A signed-in page is the member's own: never stored by a shared cache or the browser's disk cache.
    response.headers.set("Cache-Control", "no-store");
    if (resolution.refreshedCookie) response.headers.append("Set-Cookie", resolution.refreshedCookie);
  } else if (resolution.kind === "signedOut") {
    response.headers.append("Set-Cookie", await clearSessionCookie());
  }
  return response;
};
