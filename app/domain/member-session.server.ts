import { and, asc, eq, isNotNull, isNull, ne, sql } from "drizzle-orm";
import type { Database } from "../../db/client.server";
import { memberProfiles, memberSessions } from "../../db/schema";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import type { DeviceDescription } from "./device-description.server";
import { decryptSecret, encryptSecret } from "./session-crypto.server";

/** How long a sign-in may wait on the device-limit screen before the member must sign in again. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000;

export interface SessionDevice {
  id: string;
  deviceName: string;
  browser: string;
  lastLoginAt: Date;
  current: boolean;
}

export type StartSessionResult =
  | { kind: "active"; sessionId: string }
  | { kind: "deviceLimit"; sessionId: string; devices: SessionDevice[] };

/**
 * Serializes everything that changes one member's sessions, so two sign-ins at the limit cannot both take the
 * last slot (a check-then-insert without it would let them). Held until the transaction ends.
 */
async function lockMember(tx: Database, sub: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${sub}, 0))`);
}

async function activeDevices(tx: Database, sub: string, currentSessionId?: string): Promise<SessionDevice[]> {
  const rows = await tx
    .select({
      id: memberSessions.id,
      deviceName: memberSessions.deviceName,
      browser: memberSessions.browser,
      lastLoginAt: memberSessions.lastLoginAt,
    })
    .from(memberSessions)
    .where(and(eq(memberSessions.sub, sub), isNull(memberSessions.revokedAt), isNotNull(memberSessions.activatedAt)))
    .orderBy(asc(memberSessions.lastLoginAt));
  return rows.map((row) => ({ ...row, current: row.id === currentSessionId }));
}

/**
 * Records a successful authentication for a browser. A new session row every time (never the old id); the
 * browser's previous session, if any, ends. Within the device limit it is active at once; over it, it waits
 * (pending) for the member to deactivate devices on the device-limit screen.
 */
export async function startSession(
  db: Database,
  input: {
    sub: string;
    email: string;
    deviceKey: string;
    device: DeviceDescription;
    refreshToken: string;
    deviceLimit: number;
    secrets: string[];
    now?: Date;
  },
): Promise<StartSessionResult> {
  const now = input.now ?? new Date();
  return db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    // This browser's own earlier session makes way for the new one rather than taking a second slot.
    await tx
      .update(memberSessions)
      .set({ revokedAt: now })
      .where(
        and(
          eq(memberSessions.sub, input.sub),
          eq(memberSessions.deviceKey, input.deviceKey),
          isNull(memberSessions.revokedAt),
        ),
      );
    const others = await activeDevices(tx, input.sub);
    const withinLimit = others.length < input.deviceLimit;
    const [row] = await tx
      .insert(memberSessions)
      .values({
        sub: input.sub,
        email: input.email,
        deviceKey: input.deviceKey,
        deviceName: input.device.deviceName,
        browser: input.device.browser,
        refreshTokenEncrypted: encryptSecret(input.refreshToken, input.secrets),
        createdAt: now,
        lastLoginAt: now,
        activatedAt: withinLimit ? now : null,
      })
      .returning({ id: memberSessions.id });
    const sessionId = row!.id;
    return withinLimit ? { kind: "active", sessionId } : { kind: "deviceLimit", sessionId, devices: others };
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
    const others = await activeDevices(tx, pending.sub);
    if (others.length >= input.deviceLimit) return { kind: "deviceLimit", sessionId: pending.id, devices: others };
    await tx.update(memberSessions).set({ activatedAt: now, lastLoginAt: now }).where(eq(memberSessions.id, pending.id));
    return { kind: "active", sessionId: pending.id };
  });
}

async function findPendingSession(db: Database, sessionId: string, now: Date) {
  const [row] = await db
    .select({ id: memberSessions.id, sub: memberSessions.sub, createdAt: memberSessions.createdAt })
    .from(memberSessions)
    .where(
      and(eq(memberSessions.id, sessionId), isNull(memberSessions.revokedAt), isNull(memberSessions.activatedAt)),
    );
  if (!row || now.getTime() - row.createdAt.getTime() > PENDING_SIGN_IN_TTL_MS) return null;
  return row;
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

/**
 * Deactivates one of the member's own devices (never another member's: the sub is part of the match).
 * Returns the ended session's encrypted refresh token, or null when there was no such active device.
 */
export async function deactivateDevice(
  db: Database,
  input: { sub: string; sessionId: string; exceptSessionId?: string; now?: Date },
): Promise<{ refreshTokenEncrypted: string; deviceName: string } | null> {
  const [row] = await db
    .update(memberSessions)
    .set({ revokedAt: input.now ?? new Date() })
    .where(
      and(
        eq(memberSessions.id, input.sessionId),
        eq(memberSessions.sub, input.sub),
        isNull(memberSessions.revokedAt),
        isNotNull(memberSessions.activatedAt),
        input.exceptSessionId ? ne(memberSessions.id, input.exceptSessionId) : undefined,
      ),
    )
    .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted, deviceName: memberSessions.deviceName });
  return row ?? null;
}

/** The member's active (signed-in) browsers, oldest login first, with this browser marked current. */
export function listActiveDevices(db: Database, sub: string, currentSessionId: string): Promise<SessionDevice[]> {
  return activeDevices(db, sub, currentSessionId);
}

/**
 * Ends every session of the member but the one kept (after a password change), pending sign-ins included.
 * Returns the ended sessions' encrypted refresh tokens, for revoking at Cognito.
 */
export async function endOtherSessions(
  db: Database,
  sub: string,
  keepSessionId: string,
  now = new Date(),
): Promise<string[]> {
  return db.transaction(async (tx) => {
    await lockMember(tx, sub);
    const rows = await tx
      .update(memberSessions)
      .set({ revokedAt: now })
      .where(and(eq(memberSessions.sub, sub), isNull(memberSessions.revokedAt), ne(memberSessions.id, keepSessionId)))
      .returning({ refreshTokenEncrypted: memberSessions.refreshTokenEncrypted });
    return rows.map((row) => row.refreshTokenEncrypted);
  });
}

/**
 * Revokes ended sessions' refresh tokens at Cognito, best effort: the session rows are already ended, which is
 * what signs those browsers out; if Cognito is down the tokens simply run out on their own.
 */
export async function revokeRefreshTokens(
  deps: { identity: Pick<IdentityProvider, "revokeRefreshToken">; secrets: string[] },
  refreshTokensEncrypted: (string | null)[],
): Promise<void> {
  await Promise.all(
    refreshTokensEncrypted.map(async (refreshTokenEncrypted) => {
      const refreshToken = refreshTokenEncrypted ? openRefreshToken({ refreshTokenEncrypted }, deps.secrets) : null;
      if (!refreshToken) return;
      await deps.identity
        .revokeRefreshToken(refreshToken)
        .catch((error: unknown) => logger.warn({ err: error }, "could not revoke a refresh token at Cognito"));
    }),
  );
}
