import { and, asc, eq, inArray, isNotNull, isNull, lt, ne, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "../../db/client.server";
import { memberProfiles, memberSessions, memberSignOuts } from "../../db/schema";
import { IdentityError, type IdentityErrorCode } from "~/integrations/cognito/cognito-errors.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import type { DeviceDescription } from "./device-description.server";
import { decryptSecret, encryptSecret } from "./session-crypto.server";

/** How long a sign-in may wait on the device-limit screen before the member must sign in again. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000;

export interface SessionDevice {
  id: string;
  /** The browser's long-lived device key: what the API names a device by. */
  deviceKey: string;
  deviceName: string;
  browser: string;
  lastLoginAt: Date;
  current: boolean;
}

export type StartSessionResult =
  /** `reused`: the same sign-in was already recorded for this device, and nothing changed but its login time. */
  | { kind: "active"; sessionId: string; endedRefreshTokens: string[]; reused?: boolean }
  | { kind: "deviceLimit"; sessionId: string; devices: SessionDevice[]; endedRefreshTokens: string[] };

/** Which of the listed devices is the one asking: by its session row (pages) or its token's sign-in (API). */
export type CurrentDevice = { sessionId?: string | undefined; originJti?: string | undefined };

/**
 * Serializes everything that changes one member's sessions, so two sign-ins at the limit cannot both take the
 * last slot (a check-then-insert without it would let them). Held until the transaction ends.
 */
export async function lockMember(tx: Database, sub: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${sub}, 0))`);
}

/** Whether the member cancelled; read under lockMember, so a cancellation cannot commit in between. */
async function isCancelled(tx: Database, sub: string): Promise<boolean> {
  const [row] = await tx
    .select({ cancelledAt: memberProfiles.cancelledAt })
    .from(memberProfiles)
    .where(eq(memberProfiles.sub, sub));
  return !!row?.cancelledAt;
}

async function activeDevices(tx: Database, sub: string, current: CurrentDevice = {}): Promise<SessionDevice[]> {
  const rows = await tx
    .select({
      id: memberSessions.id,
      deviceKey: memberSessions.deviceKey,
      originJti: memberSessions.originJti,
      deviceName: memberSessions.deviceName,
      browser: memberSessions.browser,
      lastLoginAt: memberSessions.lastLoginAt,
    })
    .from(memberSessions)
    .where(and(eq(memberSessions.sub, sub), isNull(memberSessions.revokedAt), isNotNull(memberSessions.activatedAt)))
    .orderBy(asc(memberSessions.lastLoginAt));
  return rows.map(({ originJti, ...row }) => ({
    ...row,
    current: row.id === current.sessionId || (!!originJti && originJti === current.originJti),
  }));
}

/**
 * Browsers that lose their device key and come back as strangers: Safari's tracking prevention wipes the storage
 * a sibling service's script keeps the key in after seven days. Each return would take another device slot.
 */
function losesDeviceKey(device: DeviceDescription): boolean {
  return /^Safari\b/.test(device.browser);
}

/**
 * Ends the member's other live entries for the same Safari on the same system (spec: "before creating a device,
 * an outdated browser-specific device entry is deleted"), keeping the asking device's own. Two Macs with the same
 * Safari and macOS versions are indistinguishable here; the other one is signed out and signs in again.
 * Returns the ended rows' encrypted refresh tokens, for revoking at Cognito.
 */
async function endOutdatedBrowserEntries(
  tx: Database,
  input: { sub: string; device: DeviceDescription; keep: { deviceKey?: string; originJti?: string }; now: Date },
): Promise<string[]> {
  if (!losesDeviceKey(input.device)) return [];
  const rows = await tx
    .update(memberSessions)
    .set({ revokedAt: input.now })
    .where(
      and(
        eq(memberSessions.sub, input.sub),
        eq(memberSessions.deviceName, input.device.deviceName),
        eq(memberSessions.browser, input.device.browser),
        isNull(memberSessions.revokedAt),
        isNotNull(memberSessions.activatedAt),
        input.keep.deviceKey ? ne(memberSessions.deviceKey, input.keep.deviceKey) : undefined,
        input.keep.originJti
          ? sql`${memberSessions.originJti} is distinct from ${input.keep.originJti}`
          : undefined,
      ),
    )
    .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
  return rows.map((row) => row.refreshTokenEncrypted);
}

/** DELETE /api/old-safari-device: the same clean-up on its own, for the asking browser. */
export async function endOutdatedBrowserEntriesFor(
  db: Database,
  input: { sub: string; device: DeviceDescription; originJti?: string; now?: Date },
): Promise<string[]> {
  return db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    return endOutdatedBrowserEntries(tx, {
      sub: input.sub,
      device: input.device,
      keep: { originJti: input.originJti },
      now: input.now ?? new Date(),
    });
  });
}

/**
 * Records a successful authentication for a browser. A new session row every time (never the old id); the
 * browser's previous session, if any, ends, and so does an outdated entry of the same Safari (see above). Within
 * the device limit it is active at once; over it, pages hold it (pending) for the member to deactivate devices on
 * the device-limit screen, while the API refuses it (no row: the caller frees a slot and registers again).
 * Registering the same sign-in for the same device again (the API retried) changes nothing but the login time.
 * A cancelled member gets no session (IdentityError "invalidCredentials", as a wrong password reads): a sign-in
 * that authenticated at Cognito just before the cancellation deleted the user must not outlive it.
 */
export async function startSession(
  db: Database,
  input: {
    sub: string;
    email: string;
    deviceKey: string;
    device: DeviceDescription;
    refreshToken: string;
    /** The sign-in's `origin_jti` (null only when Cognito issues tokens without revocation support). */
    originJti: string | null;
    deviceLimit: number;
    secrets: string[];
    overLimit: "hold" | "refuse";
    now?: Date;
  },
): Promise<StartSessionResult> {
  const now = input.now ?? new Date();
  return db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    if (await isCancelled(tx, input.sub)) {
      throw new IdentityError("invalidCredentials", "AdminInitiateAuth", new Error("the membership is cancelled"));
    }
    const ownLive = and(
      eq(memberSessions.sub, input.sub),
      eq(memberSessions.deviceKey, input.deviceKey),
      isNull(memberSessions.revokedAt),
    );
    if (input.originJti) {
      const [same] = await tx
        .update(memberSessions)
        .set({ lastLoginAt: now })
        .where(and(ownLive, isNotNull(memberSessions.activatedAt), eq(memberSessions.originJti, input.originJti)))
        .returning({ id: memberSessions.id });
      if (same) return { kind: "active", sessionId: same.id, endedRefreshTokens: [], reused: true };
    }
    // This browser's own earlier session makes way for the new one rather than taking a second slot.
    const replaced = await tx
      .update(memberSessions)
      .set({ revokedAt: now })
      .where(ownLive)
      .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
    const outdated = await endOutdatedBrowserEntries(tx, {
      sub: input.sub,
      device: input.device,
      keep: { deviceKey: input.deviceKey },
      now,
    });
    const endedRefreshTokens = [...replaced.map((row) => row.refreshTokenEncrypted), ...outdated];
    const others = await activeDevices(tx, input.sub);
    const withinLimit = others.length < input.deviceLimit;
    if (!withinLimit && input.overLimit === "refuse") {
      return { kind: "deviceLimit", sessionId: "", devices: others, endedRefreshTokens };
    }
    const [row] = await tx
      .insert(memberSessions)
      .values({
        sub: input.sub,
        email: input.email,
        deviceKey: input.deviceKey,
        deviceName: input.device.deviceName,
        browser: input.device.browser,
        refreshTokenEncrypted: encryptSecret(input.refreshToken, input.secrets),
        originJti: input.originJti,
        createdAt: now,
        lastLoginAt: now,
        activatedAt: withinLimit ? now : null,
      })
      .returning({ id: memberSessions.id });
    const sessionId = row!.id;
    return withinLimit
      ? { kind: "active", sessionId, endedRefreshTokens }
      : { kind: "deviceLimit", sessionId, devices: others, endedRefreshTokens };
  });
}

/**
 * Continues a sign-in held at the device limit, once the member has freed a slot. Still over the limit (or the
 * pending sign-in expired or was revoked): the current device list, so the screen can say so.
 */
export async function activatePendingSession(
  db: Database,
  input: { sessionId: string; deviceLimit: number; now?: Date },
): Promise<StartSessionResult | { kind: "expired" }> {
  const now = input.now ?? new Date();
  return db.transaction(async (tx) => {
    const pending = await findPendingSession(tx, input.sessionId, now);
    if (!pending) return { kind: "expired" };
    await lockMember(tx, pending.sub);
    if (await isCancelled(tx, pending.sub)) return { kind: "expired" };
    const others = await activeDevices(tx, pending.sub);
    if (others.length >= input.deviceLimit) {
      return { kind: "deviceLimit", sessionId: pending.id, devices: others, endedRefreshTokens: [] };
    }
    await tx.update(memberSessions).set({ activatedAt: now, lastLoginAt: now }).where(eq(memberSessions.id, pending.id));
    return { kind: "active", sessionId: pending.id, endedRefreshTokens: [] };
  });
}

async function findPendingSession(db: Database, sessionId: string, now: Date) {
  const [row] = await db
    .select({
      id: memberSessions.id,
      sub: memberSessions.sub,
      createdAt: memberSessions.createdAt,
      refreshTokenEncrypted: memberSessions.refreshTokenEncrypted,
    })
    .from(memberSessions)
    .where(
      and(eq(memberSessions.id, sessionId), isNull(memberSessions.revokedAt), isNull(memberSessions.activatedAt)),
    );
  if (!row || now.getTime() - row.createdAt.getTime() > PENDING_SIGN_IN_TTL_MS) return null;
  return row;
}

/** A sign-in waiting on the device-limit screen, with how many active devices it competes with (null: none, expired). */
export async function pendingSignIn(db: Database, sessionId: string, now = new Date()) {
  const pending = await findPendingSession(db, sessionId, now);
  return pending ? { ...pending, activeDevices: (await activeDevices(db, pending.sub)).length } : null;
}

/** Whose sign-in is waiting under this id (null when none is, or it expired). */
export async function pendingSessionOwner(db: Database, sessionId: string, now = new Date()): Promise<string | null> {
  return (await findPendingSession(db, sessionId, now))?.sub ?? null;
}

/** The devices a pending sign-in competes with, for the device-limit screen. */
export async function listDevicesForPendingSession(db: Database, sessionId: string, now = new Date()) {
  const pending = await findPendingSession(db, sessionId, now);
  return pending ? activeDevices(db, pending.sub) : null;
}

export interface LiveSession {
  id: string;
  sub: string;
  email: string;
  familyName: string | null;
  givenName: string | null;
  refreshTokenEncrypted: string;
}

/** The active, unrevoked session with this id, with the names the header shows; one query per page view. */
export async function findLiveSession(db: Database, sessionId: string): Promise<LiveSession | null> {
  const [row] = await db
    .select({
      id: memberSessions.id,
      sub: memberSessions.sub,
      email: memberSessions.email,
      familyName: memberProfiles.familyName,
      givenName: memberProfiles.givenName,
      refreshTokenEncrypted: memberSessions.refreshTokenEncrypted,
    })
    .from(memberSessions)
    .leftJoin(memberProfiles, eq(memberProfiles.sub, memberSessions.sub))
    .where(
      and(eq(memberSessions.id, sessionId), isNull(memberSessions.revokedAt), isNotNull(memberSessions.activatedAt)),
    );
  return row ?? null;
}

export function openRefreshToken(session: { refreshTokenEncrypted: string }, secrets: string[]): string | null {
  return decryptSecret(session.refreshTokenEncrypted, secrets);
}

/** Ends one session; returns its encrypted refresh token so the caller can revoke it at Cognito too. */
export async function endSession(db: Database, sessionId: string, now = new Date()): Promise<string | null> {
  const [row] = await db
    .update(memberSessions)
    .set({ revokedAt: now })
    .where(and(eq(memberSessions.id, sessionId), isNull(memberSessions.revokedAt)))
    .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
  return row?.refreshTokenEncrypted ?? null;
}

const SessionIdSchema = z.uuid();

/**
 * Deactivates one of the member's own devices, named by its session row (pages) or its device key (API); never
 * another member's: the sub is part of the match. Returns the ended session's encrypted refresh token, or null
 * when there was no such active device.
 */
export async function deactivateDevice(
  db: Database,
  input: { sub: string; sessionId?: string; deviceKey?: string; exceptSessionId?: string; now?: Date },
): Promise<{ refreshTokenEncrypted: string; deviceName: string } | null> {
  if (!input.sessionId && !input.deviceKey) return null;
  // Session ids come from forms here: one that is no UUID names no session (PostgreSQL would refuse it with an error).
  if (input.sessionId && !SessionIdSchema.safeParse(input.sessionId).success) return null;
  const [row] = await db
    .update(memberSessions)
    .set({ revokedAt: input.now ?? new Date() })
    .where(
      and(
        input.sessionId ? eq(memberSessions.id, input.sessionId) : undefined,
        input.deviceKey ? eq(memberSessions.deviceKey, input.deviceKey) : undefined,
        eq(memberSessions.sub, input.sub),
        isNull(memberSessions.revokedAt),
        isNotNull(memberSessions.activatedAt),
        input.exceptSessionId ? ne(memberSessions.id, input.exceptSessionId) : undefined,
      ),
    )
    .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted, deviceName: memberSessions.deviceName });
  return row ?? null;
}

/** The member's active (signed-in) browsers, oldest login first, with the asking one marked current. */
export function listActiveDevices(db: Database, sub: string, current: CurrentDevice): Promise<SessionDevice[]> {
  return activeDevices(db, sub, current);
}

/**
 * Where a bearer token's sign-in stands, in one indexed query: "ended" when its session was ended (signed out,
 * deactivated, password changed) and not registered again, or when no session records it and the member was
 * signed out everywhere after the token was issued; "cancelled" when the member cancelled; "live" when a session
 * holds it; "unregistered" for a sign-in no session records (a sibling service's, before it registers the
 * device). A token without `origin_jti` can only be "unregistered", "ended" or "cancelled".
 */
export async function tokenStanding(
  db: Database,
  input: { sub: string; originJti: string | null; issuedAt: Date },
): Promise<"live" | "ended" | "unregistered" | "cancelled"> {
  // An aggregate without GROUP BY: exactly one row, whether or not any session matches.
  const [row] = await db
    .select({
      live: sql<boolean | null>`bool_or(${memberSessions.revokedAt} is null)`,
      cancelled: sql<boolean | null>`(select ${memberProfiles.cancelledAt} is not null from ${memberProfiles} where ${memberProfiles.sub} = ${input.sub})`,
      signedOutSince: sql<boolean>`exists (select 1 from ${memberSignOuts} where ${memberSignOuts.sub} = ${input.sub} and ${memberSignOuts.signedOutAt} > ${input.issuedAt.toISOString()})`,
    })
    .from(memberSessions)
    .where(
      and(
        eq(memberSessions.sub, input.sub),
        input.originJti ? eq(memberSessions.originJti, input.originJti) : sql`false`,
      ),
    );
  if (row?.cancelled) return "cancelled";
  if (row?.live === true) return "live";
  if (row?.live === false || row?.signedOutSince) return "ended";
  return "unregistered";
}

/**
 * Notes that every sign-in of the member was just signed out at Cognito (a password change), so the API refuses
 * access tokens issued before now by sign-ins no session records (see tokenStanding).
 */
export async function recordSignOutEverywhere(db: Database, sub: string, now = new Date()): Promise<void> {
  // Tokens say when they were issued in whole seconds: one issued in this very second may be a new sign-in's.
  const signedOutAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
  await db
    .insert(memberSignOuts)
    .values({ sub, signedOutAt })
    .onConflictDoUpdate({ target: memberSignOuts.sub, set: { signedOutAt } });
}

/**
 * Gives a live session a new Cognito sign-in: its refresh token and the origin its access tokens name. For a
 * browser that keeps its session after every refresh token of the member was revoked (password change).
 */
export async function renewSessionSignIn(
  db: Database,
  input: { sessionId: string; refreshToken: string; originJti: string | null; secrets: string[] },
): Promise<void> {
  await db
    .update(memberSessions)
    .set({ refreshTokenEncrypted: encryptSecret(input.refreshToken, input.secrets), originJti: input.originJti })
    .where(and(eq(memberSessions.id, input.sessionId), isNull(memberSessions.revokedAt)));
}

/**
 * Ends every session of the member but the one kept (after a password change; none kept after a password reset),
 * pending sign-ins included. Returns the ended sessions' encrypted refresh tokens, for revoking at Cognito.
 */
export async function endOtherSessions(
  db: Database,
  sub: string,
  keepSessionId: string | null,
  now = new Date(),
): Promise<string[]> {
  return db.transaction(async (tx) => {
    await lockMember(tx, sub);
    const rows = await tx
      .update(memberSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(memberSessions.sub, sub),
          isNull(memberSessions.revokedAt),
          keepSessionId ? ne(memberSessions.id, keepSessionId) : undefined,
        ),
      )
      .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
    return rows.map((row) => row.refreshTokenEncrypted);
  });
}

/**
 * Signs the member out everywhere after the password changed (a change or a reset): every session but the one kept
 * ends, the member API is told to refuse tokens issued before now (recordSignOutEverywhere), and Cognito revokes
 * every refresh token of the member (a global sign-out: Cognito keeps them through a password change, including a
 * sibling's sign-in no session records). If the global sign-out fails, the ended sessions' refresh tokens are
 * revoked one by one instead. Returns how many sessions ended and whether the global sign-out went through.
 */
export async function signOutEverywhere(
  deps: RevocationDependencies & { db: Database; identity: Pick<IdentityProvider, "signOutEverywhere"> },
  input: { sub: string; keepSessionId: string | null },
): Promise<{ endedSessions: number; globalSignOut: boolean }> {
  const ended = await endOtherSessions(deps.db, input.sub, input.keepSessionId);
  await recordSignOutEverywhere(deps.db, input.sub);
  try {
    await deps.identity.signOutEverywhere(input.sub);
  } catch (error) {
    logger.warn({ err: error }, "global sign-out failed; revoking the known sessions' refresh tokens only");
    await revokeRefreshTokens(deps, ended);
    return { endedSessions: ended.length, globalSignOut: false };
  }
  // A global sign-out revoked them all: nothing is owed on these rows.
  await recordRevocationsConfirmed(deps.db, ended);
  return { endedSessions: ended.length, globalSignOut: true };
}

/** How often, and after what pauses, one refresh token's revocation is tried before it is left to the purge job. */
export const REVOCATION_RETRY_DELAYS_MS = [200, 1_000] as const;

/**
 * Failures that say nothing about the token (Cognito down, slow, throttling): worth another try. Any other refusal
 * means Cognito will not take the token any more (already revoked, expired, user deleted), which is the goal.
 */
const TRANSIENT_REVOCATION_FAILURES: ReadonlySet<IdentityErrorCode> = new Set(["unavailable", "throttled"]);

export interface RevocationDependencies {
  identity: Pick<IdentityProvider, "revokeRefreshToken">;
  secrets: string[];
  /** When given, a confirmed revocation is recorded on its session row; without it the purge job re-confirms it. */
  db?: Database;
  /** The pauses between tries (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

/** Revokes one refresh token, retrying transient failures; true once Cognito will not take the token any more. */
async function revokeWithRetries(deps: RevocationDependencies, refreshToken: string): Promise<boolean> {
  const delays = deps.retryDelaysMs ?? REVOCATION_RETRY_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await deps.identity.revokeRefreshToken(refreshToken);
      return true;
    } catch (error) {
      const transient = !(error instanceof IdentityError) || TRANSIENT_REVOCATION_FAILURES.has(error.code);
      if (!transient) return true;
      if (attempt >= delays.length) {
        logger.warn({ err: error }, "could not revoke a refresh token at Cognito; the purge job will retry");
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
    }
  }
}

/**
 * Revokes ended sessions' refresh tokens at Cognito, with a few retries. The session rows are already ended, which
 * is what signs those browsers out; a revocation Cognito could not confirm stays owed on its row
 * (refresh_token_revoked_at null) and the purge job tries it again (revokeOwedRefreshTokens).
 */
export async function revokeRefreshTokens(
  deps: RevocationDependencies,
  refreshTokensEncrypted: (string | null)[],
): Promise<void> {
  const confirmed: string[] = [];
  await Promise.all(
    refreshTokensEncrypted.map(async (refreshTokenEncrypted) => {
      if (!refreshTokenEncrypted) return;
      const refreshToken = openRefreshToken({ refreshTokenEncrypted }, deps.secrets);
      // A token no listed secret opens stays owed: the secrets given may be the wrong ones (a misconfigured job).
      if (refreshToken && (await revokeWithRetries(deps, refreshToken))) confirmed.push(refreshTokenEncrypted);
    }),
  );
  if (deps.db) await recordRevocationsConfirmed(deps.db, confirmed);
}

/** Marks ended sessions' refresh tokens as revoked at Cognito, so the purge job owes them nothing. */
async function recordRevocationsConfirmed(db: Database, refreshTokensEncrypted: string[]): Promise<void> {
  if (refreshTokensEncrypted.length === 0) return;
  await db
    .update(memberSessions)
    .set({ refreshTokenRevokedAt: new Date() })
    .where(and(inArray(memberSessions.refreshTokenEncrypted, refreshTokensEncrypted), isNotNull(memberSessions.revokedAt)));
}

/** How many owed revocations one purge run tries, so a long Cognito outage does not make one run endless. */
export const OWED_REVOCATIONS_PER_RUN = 500;

/** The purge job's retry of revocations Cognito did not confirm when their sessions ended. */
export async function revokeOwedRefreshTokens(
  deps: RevocationDependencies & { db: Database },
): Promise<{ confirmed: number; owed: number }> {
  const rows = await deps.db
    .select({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted })
    .from(memberSessions)
    .where(and(isNotNull(memberSessions.revokedAt), isNull(memberSessions.refreshTokenRevokedAt)))
    .orderBy(asc(memberSessions.revokedAt))
    .limit(OWED_REVOCATIONS_PER_RUN);
  await revokeRefreshTokens(
    deps,
    rows.map((row) => row.refreshTokenEncrypted),
  );
  const [left] = await deps.db
    .select({ owed: sql<number>`count(*)::int` })
    .from(memberSessions)
    .where(and(isNotNull(memberSessions.revokedAt), isNull(memberSessions.refreshTokenRevokedAt)));
  return { confirmed: rows.length - (left?.owed ?? 0), owed: left?.owed ?? 0 };
}

/**
 * Ended sessions are kept this long, then deleted: well beyond an access token's longest life (one day), since
 * the member API refuses a token by its ended row (tokenStanding), and long enough to see recent sign-outs.
 */
export const ENDED_SESSION_RETENTION_DAYS = 30;
/**
 * An ended session whose revocation is still owed after this long is deleted all the same: by then its refresh
 * token has expired under Cognito's default 30-day validity (or its secret was rotated out and it cannot be opened).
 */
export const OWED_REVOCATION_GIVE_UP_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes sessions ended more than ENDED_SESSION_RETENTION_DAYS before `now` whose refresh token is confirmed
 * revoked (an owed revocation keeps its row, the only place the token is, up to OWED_REVOCATION_GIVE_UP_DAYS), and
 * ends pending sign-ins left on the device-limit screen past their lifetime so their refresh tokens get revoked too.
 */
export async function purgeEndedSessions(db: Database, now: Date): Promise<{ deleted: number }> {
  await db
    .update(memberSessions)
    .set({ revokedAt: now })
    .where(
      and(
        isNull(memberSessions.activatedAt),
        isNull(memberSessions.revokedAt),
        lt(memberSessions.createdAt, new Date(now.getTime() - PENDING_SIGN_IN_TTL_MS)),
      ),
    );
  const deleted = await db
    .delete(memberSessions)
    .where(
      or(
        and(
          lt(memberSessions.revokedAt, new Date(now.getTime() - ENDED_SESSION_RETENTION_DAYS * DAY_MS)),
          isNotNull(memberSessions.refreshTokenRevokedAt),
        ),
        lt(memberSessions.revokedAt, new Date(now.getTime() - OWED_REVOCATION_GIVE_UP_DAYS * DAY_MS)),
      ),
    )
    .returning({ id: memberSessions.id });
  return { deleted: deleted.length };
}
