import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberProfiles, memberSessions } from "~db/schema";
import { type AccessTokenClaims, verifyAccessToken } from "~/integrations/cognito/access-token.server";
import { DomainError, type DomainErrorCode } from "../domain-error.server";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { type StoredProfile, storedProfileColumns } from "../account/profile.server";
import { recordAccountEvents, sidOf } from "../events/account-events.server";
import { encryptSecret, openRefreshToken } from "./refresh-tokens.server";
import { endSessions } from "./session-ending.server";

export interface LiveSession {
  id: string;
  sub: string;
  email: string;
  profile: StoredProfile | null;
  refreshTokenEncrypted: string;
  passwordVerifiedAt: Date | null;
}

/** The member a page session belongs to, as pages see them. */
export interface SignedInMember {
  sub: string;
  email: string;
  familyName: string | null;
  givenName: string | null;
  /**
   * The stored profile as the session check read it, at the start of the request (the same query: on the embedded
   * PGlite every query runs on the app's thread). For pages that only show it; a page that changes it reads it
   * again after the change.
   */
  profile: StoredProfile | null;
  groups: string[];
  sessionId: string;
  accessToken: string;
  /** When the password was last typed on this session (app/domain/account/reauthentication.server.ts). */
  passwordVerifiedAt: Date | null;
}

export type PageSessionResolution =
  /** `refreshedAccessToken`: the access token had expired and was refreshed; the cookie needs the new one. */
  | { kind: "member"; member: SignedInMember; refreshedAccessToken?: string }
  | { kind: "signedOut" }
  /** Cognito could not answer (down, slow, throttling): anonymous for this request, the session kept for the next. */
  | { kind: "unverified" };

function prepareLiveSessionQuery(db: Database) {
  return db
    .select({
      id: memberSessions.id,
      sub: memberSessions.sub,
      email: memberSessions.email,
      profile: storedProfileColumns,
      refreshTokenEncrypted: memberSessions.refreshTokenEncrypted,
      passwordVerifiedAt: memberSessions.passwordVerifiedAt,
    })
    .from(memberSessions)
    .leftJoin(memberProfiles, eq(memberProfiles.sub, memberSessions.sub))
    .where(
      and(
        eq(memberSessions.id, sql.placeholder("sessionId")),
        isNull(memberSessions.revokedAt),
        isNotNull(memberSessions.activatedAt),
      ),
    )
    .prepare("find_live_session");
}

/**
 * The session check's query, built once per database: it runs on every signed-in page view, and Drizzle's
 * builder would make its SQL again each time, a cost the app's own thread pays on PGlite, where queries run
 * there too.
 */
const liveSessionQueries = new WeakMap<Database, ReturnType<typeof prepareLiveSessionQuery>>();

/** The active, unrevoked session with this id, with its member's stored profile; one query per page view. */
export async function findLiveSession(db: Database, sessionId: string): Promise<LiveSession | null> {
  let query = liveSessionQueries.get(db);
  if (!query) {
    query = prepareLiveSessionQuery(db);
    liveSessionQueries.set(db, query);
  }
  const [row] = await query.execute({ sessionId });
  return row ?? null;
}

/**
 * Refresh failures that say nothing about the refresh token: Cognito down, slow or throttling (TooManyRequests,
 * LimitExceeded). The session must survive them; ending it would sign the member out for good
 * because Cognito was busy for a moment.
 */
const TRANSIENT_REFRESH_FAILURES: ReadonlySet<DomainErrorCode> = new Set([
  "unavailable",
  "throttled",
  "signInThrottled",
]);

function toMember(session: LiveSession, groups: string[], accessToken: string): SignedInMember {
  return {
    sub: session.sub,
    email: session.email,
    familyName: session.profile?.familyName ?? null,
    givenName: session.profile?.givenName ?? null,
    profile: session.profile,
    groups,
    sessionId: session.id,
    accessToken,
    passwordVerifiedAt: session.passwordVerifiedAt,
  };
}

/**
 * Whether an access token that still verifies is refreshed before this request uses it: in the last quarter of its
 * life, at most its last minute. The member's own actions send it to Cognito (a password change, the authenticator
 * set-up, passkeys), which would refuse it had it expired on the way there. One refresh per token all the same, a
 * little earlier. `now`: the real time, as jose and Cognito judge expiry by it.
 */
export function refreshesEarly(claims: Pick<AccessTokenClaims, "issuedAt" | "expiresAt">, now: number): boolean {
  const life = claims.expiresAt.getTime() - claims.issuedAt.getTime();
  return claims.expiresAt.getTime() - now < Math.min(EARLY_REFRESH_MAX_MS, life / 4);
}

const EARLY_REFRESH_MAX_MS = 60_000;

/**
 * Who a page session's cookie belongs to. A page view costs no Cognito call: the access token is verified locally
 * (cached JWKS) and the session row is read once. Only an expired access token, or one about to expire
 * (refreshesEarly), costs one refresh; if Cognito cannot answer it, a token that still verifies serves this request.
 * A revoked or unknown session, a token that is not ours or a refused refresh all end in "signed out"; a refused
 * refresh also ends the session, a renewal notes when the browser was last active. Database failures are thrown: the caller decides what an unknown member means.
 */
export async function resolvePageSession(
  services: Pick<AppServices, "db" | "identity" | "config" | "clock">,
  cookie: { sessionId: string; accessToken: string },
): Promise<PageSessionResolution> {
  const { config, db } = services;
  const [check, session] = await Promise.all([
    verifyAccessToken(cookie.accessToken, config.cognito),
    findLiveSession(db, cookie.sessionId),
  ]);
  if (!session) return { kind: "signedOut" };
  let stillValid: PageSessionResolution | null = null;
  if (check.valid) {
    if (check.claims.sub !== session.sub) return { kind: "signedOut" };
    stillValid = { kind: "member", member: toMember(session, check.claims.groups, cookie.accessToken) };
    if (!refreshesEarly(check.claims, Date.now())) return stillValid;
  } else if ("unverifiable" in check) {
    return { kind: "unverified" };
  } else if (!check.expired) {
    return { kind: "signedOut" };
  }

  const refreshToken = openRefreshToken(session, config.sessionSecrets);
  if (!refreshToken) return stillValid ?? { kind: "signedOut" };
  let accessToken: string;
  try {
    ({ accessToken } = await services.identity.refresh(refreshToken));
  } catch (error) {
    if (error instanceof DomainError && TRANSIENT_REFRESH_FAILURES.has(error.code)) {
      logger.warn({ err: error, code: error.code }, "could not refresh a session: Cognito unavailable or throttling");
      return stillValid ?? { kind: "unverified" };
    }
    // Cognito refused the refresh token (revoked, expired, user disabled): this session is over.
    await endSessions(services, { sessionId: session.id, refreshRefused: true });
    return { kind: "signedOut" };
  }
  const refreshed = await verifyAccessToken(accessToken, config.cognito);
  if (!refreshed.valid || refreshed.claims.sub !== session.sub) return { kind: "signedOut" };
  // The device list's "last active": a renewal is the one moment a page view writes, about once an hour.
  await db.update(memberSessions).set({ lastActiveAt: services.clock.now() }).where(eq(memberSessions.id, session.id));
  return {
    kind: "member",
    member: toMember(session, refreshed.claims.groups, accessToken),
    refreshedAccessToken: accessToken,
  };
}

/**
 * Gives a live session a new Cognito sign-in: its refresh token and the origin its access tokens name. For a
 * browser that keeps its session after every refresh token of the member was revoked (password change). The
 * siblings know a session by its sign-in's origin (sidOf), so for them the old one ended with the password change
 * and a new one began: both are recorded in the transaction that renews the row.
 */
export async function renewSessionSignIn(
  services: Pick<AppServices, "db" | "config" | "clock">,
  input: { sessionId: string; refreshToken: string; originJti: string | null },
): Promise<void> {
  await services.db.transaction(async (tx) => {
    const live = and(eq(memberSessions.id, input.sessionId), isNull(memberSessions.revokedAt));
    const [before] = await tx
      .select({
        id: memberSessions.id,
        sub: memberSessions.sub,
        originJti: memberSessions.originJti,
        activatedAt: memberSessions.activatedAt,
        deviceName: memberSessions.deviceName,
        browser: memberSessions.browser,
      })
      .from(memberSessions)
      .where(live)
      .for("update");
    if (!before) return;
    await tx
      .update(memberSessions)
      .set({
        refreshTokenEncrypted: encryptSecret(input.refreshToken, services.config.sessionSecrets),
        originJti: input.originJti,
      })
      .where(live);
    const renewed = { id: before.id, originJti: input.originJti };
    if (!before.activatedAt || sidOf(before) === sidOf(renewed)) return;
    const occurredAt = services.clock.now();
    await recordAccountEvents(tx, [
      {
        type: "session.revoked",
        sub: before.sub,
        occurredAt,
        data: { sid: sidOf(before), reason: "password-changed" },
      },
      {
        type: "session.created",
        sub: before.sub,
        occurredAt,
        data: { sid: sidOf(renewed), device: before.deviceName, browser: before.browser },
      },
    ]);
  });
}
