import { type SQL, and, eq, inArray, isNotNull, isNull, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { memberSessions } from "~db/schema";
import {
  type SessionRevokedReason,
  recordAccountEvent,
  recordAccountEvents,
  sidOf,
} from "../events/account-events.server";
import { logger } from "~/integrations/logger.server";
import { ringEventDelivery } from "../events/event-delivery.server";
import type { AppServices } from "~/services.server";
import { recordSignOutEverywhere } from "./api-token-standing.server";
import type { DeviceDescription } from "./device-description.server";
import { storedDeviceKeysNamed } from "./device-keys.server";
import { lockMember } from "./member-lock.server";
import { recordRevocationsConfirmed, revokeRefreshTokens } from "./refresh-tokens.server";
import { forgetServerToken } from "./server-tokens.server";
import { endStaffSessionRows, revokeStaffRefreshTokens } from "./staff-session-ending.server";
import { type SecurityEvent, recordSecurityEvent, recordSecurityEvents } from "../security/security-record.server";

type SessionServices = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/** Which sessions end. */
export type SessionsToEnd =
  /**
   * One session by its id, pending or active: sign-out, leaving the device-limit screen, a refused refresh
   * (`refreshRefused`: Cognito already refused its refresh token, so there is nothing left to revoke).
   */
  | { sessionId: string; refreshRefused?: boolean }
  /**
   * One of the member's own active devices, by its session row (pages) or its device key as the API lists it (a
   * sibling's registration or a page session); never another member's (the sub is part of the match) and never
   * `exceptSessionId` (the asking browser).
   */
  | { sub: string; device: { sessionId: string } | { deviceKey: string }; exceptSessionId?: string }
  /** Every session of the member, pending ones included (a cancellation). */
  | { sub: string; all: true }
  /** Every session of the member but the asking browser's ("Sign out all other devices"), pending ones included. */
  | { sub: string; allBut: string }
  /** The member's outdated entries of the asking Safari (DELETE /api/old-safari-device), but its own sign-in's. */
  | { sub: string; outdatedBrowser: DeviceDescription; keepOriginJti?: string | undefined };

export interface EndedSession {
  sessionId: string;
  deviceName: string;
  browser: string;
}

/**
 * How an ending goes into the security record, in the ending's transaction: one event per ended session, or, for
 * "other-sessions-ended", one event for them all. Nothing ended, nothing recorded.
 */
export interface SessionEndingRecord {
  kind: "sign-out" | "device-deactivated" | "session-reported" | "other-sessions-ended";
  /** The client IP of the request that ended them. */
  clientIp: string;
}

const SessionIdSchema = z.uuid();

/**
 * Browsers that lose their device key and come back as strangers: Safari's tracking prevention wipes the storage
 * a sibling service's script keeps the key in after seven days. Each return would take another device slot.
 */
function losesDeviceKey(device: DeviceDescription): boolean {
  return /^Safari\b/.test(device.browser);
}

/**
 * The member's other live entries for the same Safari on the same system, but the asking device's own: a browser update
 * must not leave its old self in the device list and count against the device limit. Two Macs with the same Safari and
 * macOS versions are indistinguishable here; the other one is signed out and signs in again. Null: nothing to end.
 */
export function outdatedBrowserEntries(input: {
  sub: string;
  device: DeviceDescription;
  keep: { deviceKey?: string | undefined; originJti?: string | undefined };
}): SQL | null {
  if (!losesDeviceKey(input.device)) return null;
  return and(
    eq(memberSessions.sub, input.sub),
    eq(memberSessions.deviceName, input.device.deviceName),
    eq(memberSessions.browser, input.device.browser),
    isNull(memberSessions.revokedAt),
    isNotNull(memberSessions.activatedAt),
    input.keep.deviceKey ? ne(memberSessions.deviceKey, input.keep.deviceKey) : undefined,
    input.keep.originJti ? sql`${memberSessions.originJti} is distinct from ${input.keep.originJti}` : undefined,
  )!;
}

/** Null when the selection names no session (a posted id that is no UUID names none: PostgreSQL would refuse it). */
function conditionFor(which: SessionsToEnd): SQL | null {
  if ("sessionId" in which) {
    return SessionIdSchema.safeParse(which.sessionId).success
      ? and(eq(memberSessions.id, which.sessionId), isNull(memberSessions.revokedAt))!
      : null;
  }
  if ("device" in which) {
    if ("sessionId" in which.device && !SessionIdSchema.safeParse(which.device.sessionId).success) return null;
    return and(
      "sessionId" in which.device
        ? eq(memberSessions.id, which.device.sessionId)
        : inArray(memberSessions.deviceKey, storedDeviceKeysNamed(which.device.deviceKey)),
      eq(memberSessions.sub, which.sub),
      isNull(memberSessions.revokedAt),
      isNotNull(memberSessions.activatedAt),
      which.exceptSessionId ? ne(memberSessions.id, which.exceptSessionId) : undefined,
    )!;
  }
  if ("all" in which) return and(eq(memberSessions.sub, which.sub), isNull(memberSessions.revokedAt))!;
  if ("allBut" in which) {
    if (!SessionIdSchema.safeParse(which.allBut).success) return null;
    return and(
      eq(memberSessions.sub, which.sub),
      isNull(memberSessions.revokedAt),
      ne(memberSessions.id, which.allBut),
    )!;
  }
  return outdatedBrowserEntries({
    sub: which.sub,
    device: which.outdatedBrowser,
    keep: { originJti: which.keepOriginJti },
  });
}

type EndedRow = { id: string; sub: string; deviceName: string; browser: string; refreshTokenEncrypted: string };

/**
 * Ends the session rows matching `condition` inside the caller's transaction. The session domain's own building
 * block, and the one place a member session ends: each ended session that was active gets its `session.revoked`
 * event with `reason` in this transaction, so no cause of an ending can forget it. A pending sign-in (held on the
 * device-limit screen) gets none: it never became a session, so no sibling heard of it. Whoever calls it revokes
 * the returned rows' refresh tokens once the transaction has committed.
 */
export async function endSessionRows(
  tx: Database,
  condition: SQL,
  now: Date,
  reason: SessionRevokedReason,
): Promise<EndedRow[]> {
  const rows = await tx.update(memberSessions).set({ revokedAt: now }).where(condition).returning({
    id: memberSessions.id,
    sub: memberSessions.sub,
    deviceName: memberSessions.deviceName,
    browser: memberSessions.browser,
    refreshTokenEncrypted: memberSessions.refreshTokenEncrypted,
    originJti: memberSessions.originJti,
    activatedAt: memberSessions.activatedAt,
  });
  await recordAccountEvents(
    tx,
    rows
      .filter((row) => row.activatedAt)
      .map((row) => ({
        type: "session.revoked",
        sub: row.sub,
        occurredAt: now,
        data: { sid: sidOf(row), reason },
      })),
  );
  return rows;
}

/**
 * Why sessions end, as `session.revoked` tells the siblings, when the caller does not say: from what ends and how
 * the member's record names it. A session ended by its id with nothing more said is its own browser leaving.
 */
function revokedReasonOf(which: SessionsToEnd, record: SessionEndingRecord | undefined): SessionRevokedReason {
  if ("refreshRefused" in which && which.refreshRefused) return "refresh-refused";
  if ("outdatedBrowser" in which) return "replaced";
  switch (record?.kind) {
    case "device-deactivated":
      return "device-deactivated";
    case "session-reported":
      return "reported-not-me";
    case "other-sessions-ended":
      return "signed-out-everywhere";
    default:
      return "signed-out";
  }
}

function endingEvents(ended: EndedRow[], record: SessionEndingRecord, occurredAt: Date): SecurityEvent[] {
  const common = { kind: record.kind, ipAddress: record.clientIp, occurredAt };
  if (record.kind === "other-sessions-ended") return ended[0] ? [{ ...common, sub: ended[0].sub }] : [];
  return ended.map((row) => ({
    ...common,
    sub: row.sub,
    sessionId: row.id,
    deviceName: row.deviceName,
    browser: row.browser,
  }));
}

/**
 * Whether an ending takes the member's staff sessions with it (staff power must not outlive it): every session
 * ended for the member (a cancellation, "Sign out all other devices") or a sign-in reported as not theirs ("This
 * wasn't me", the alert mail's link). A staff session belongs to no one member session, so one session's own end
 * (a sign-out, the device-limit screen left, a refused refresh) or one other device signed out names none; the two
 * sign-outs end the asking browser's staff session by its cookie.
 */
function endsStaffSessions(
  which: SessionsToEnd,
  record: SessionEndingRecord | undefined,
): which is { sub: string } & SessionsToEnd {
  return "sub" in which && ("all" in which || "allBut" in which || record?.kind === "session-reported");
}

/**
 * Ends sessions: the rows end (which signs those browsers out on their next request), then their refresh tokens
 * are revoked at Cognito, with retries; a revocation Cognito cannot confirm stays owed on its row for the purge
 * job. Changes to one member's sessions run under that member's lock; `alongside` runs in the same transaction
 * (a cancellation is recorded together with its sessions' end), and so does `record`, the ending's entry in the
 * member's security record, and the end of the member's staff sessions when the ending takes them
 * (endsStaffSessions). Returns the sessions that ended.
 */
export async function endSessions(
  services: SessionServices,
  which: SessionsToEnd,
  options: {
    alongside?: (tx: Database) => Promise<void>;
    record?: SessionEndingRecord;
    /** What `session.revoked` says, where revokedReasonOf cannot tell (the device-limit screen, a password change). */
    reason?: SessionRevokedReason;
  } = {},
): Promise<EndedSession[]> {
  const { alongside, record } = options;
  const reason = options.reason ?? revokedReasonOf(which, record);
  const condition = conditionFor(which);
  if (!condition && !alongside) return [];
  const { ended, endedStaff } = await services.db.transaction(async (tx) => {
    if ("sub" in which) await lockMember(tx, which.sub);
    await alongside?.(tx);
    if (!condition) return { ended: [], endedStaff: [] };
    const now = services.clock.now();
    const rows = await endSessionRows(tx, condition, now, reason);
    if (record) await recordSecurityEvents(tx, endingEvents(rows, record, now));
    const staffRows = endsStaffSessions(which, record) ? await endStaffSessionRows(tx, { sub: which.sub }, now) : [];
    return { ended: rows, endedStaff: staffRows };
  });
  // The ended sessions' logout tokens go out at once from this process, not at the worker's next poll.
  if (ended.length > 0) ringEventDelivery();
  const endedTokens = ended.map((row) => row.refreshTokenEncrypted);
  await Promise.all([
    "refreshRefused" in which && which.refreshRefused
      ? recordRevocationsConfirmed(services.db, endedTokens)
      : revokeRefreshTokens(services, endedTokens),
    revokeStaffRefreshTokens(services, endedStaff),
  ]);
  return ended.map((row) => ({ sessionId: row.id, deviceName: row.deviceName, browser: row.browser }));
}

/**
 * Signs the member out everywhere after the password changed (a change or a reset), when a new password could not be
 * confirmed (the repair's "password-unconfirmed") or when staff cut them off (an "end all sessions", a disable): every
 * session but the one kept ends, pending sign-ins included, every staff session of the member too, the member API is
 * told to refuse tokens issued before now (recordSignOutEverywhere), and Cognito revokes every refresh token of the
 * member (a global sign-out: Cognito keeps them through a password change, including a sibling's sign-in no session
 * records). If the global sign-out fails, the ended sessions' refresh tokens are revoked one by one instead. The
 * member's own password change or reset is recorded (security record, `member.password_changed`) in the sessions'
 * transaction, and so is what `alongside` writes (a staff disable's `member.disabled`). Returns how many sessions ended
 * and whether the global sign-out went through.
 */
export async function signOutEverywhere(
  services: SessionServices,
  input: {
    sub: string;
    keepSessionId: string | null;
    /** Why the sessions end, as `session.revoked` tells the siblings. */
    reason: "password-changed" | "password-reset" | "password-unconfirmed" | "staff-ended-sessions" | "staff-disabled";
    /** Also refuse tokens issued in this very second (staff cutting a member off; see recordSignOutEverywhere). */
    includeThisSecond?: boolean;
    /** The member's own credential change, for their security record (staff actions are in the staff audit log). */
    record?: { kind: "password-changed" | "password-reset"; clientIp: string };
    alongside?: (tx: Database) => Promise<void>;
    /**
     * Taken first in the transaction, under the member's lock: when it answers false nothing is done (the change it
     * stands for was settled already; app/domain/account/pending-cognito-changes.server.ts) and `claimed` is false.
     */
    claim?: (tx: Database) => Promise<boolean>;
  },
): Promise<{ endedSessions: number; globalSignOut: boolean; claimed: boolean }> {
  const now = services.clock.now();
  const { record } = input;
  const ended = await services.db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    if (input.claim && !(await input.claim(tx))) return null;
    await input.alongside?.(tx);
    const condition = and(
      eq(memberSessions.sub, input.sub),
      isNull(memberSessions.revokedAt),
      input.keepSessionId ? ne(memberSessions.id, input.keepSessionId) : undefined,
    )!;
    if (record) {
      await recordSecurityEvent(tx, {
        sub: input.sub,
        kind: record.kind,
        sessionId: input.keepSessionId,
        ipAddress: record.clientIp,
        occurredAt: now,
      });
      await recordAccountEvent(tx, {
        type: "member.password_changed",
        sub: input.sub,
        occurredAt: now,
        data: { via: record.kind === "password-changed" ? "change" : "reset" },
      });
    }
    // Under the member's lock, as startSession reads it: a sign-in recorded after this refuses tokens issued before.
    await recordSignOutEverywhere(tx, input.sub, now, { includeThisSecond: input.includeThisSecond });
    // The session kept lives on, but the global sign-out revokes the server token it holds for credential changes.
    if (input.keepSessionId) await forgetServerToken(tx, input.keepSessionId);
    // A staff session is no member session to keep: it ends even for the browser that changed its password.
    return {
      rows: await endSessionRows(tx, condition, now, input.reason),
      staffRows: await endStaffSessionRows(tx, { sub: input.sub }, now),
    };
  });
  if (!ended) return { endedSessions: 0, globalSignOut: false, claimed: false };
  ringEventDelivery();
  const endedTokens = ended.rows.map((row) => row.refreshTokenEncrypted);
  let globalSignOut = true;
  try {
    await services.identity.signOutEverywhere(input.sub);
  } catch (error) {
    logger.warn({ err: error }, "global sign-out failed; revoking the known sessions' refresh tokens only");
    globalSignOut = false;
  }
  await Promise.all([
    // A global sign-out revoked them all: nothing is owed on these rows.
    globalSignOut ? recordRevocationsConfirmed(services.db, endedTokens) : revokeRefreshTokens(services, endedTokens),
    // Revoked one by one all the same: a staff row lets go of its token only once a revocation is confirmed, and
    // a token the global sign-out already revoked counts as done (revokeWithRetries).
    revokeStaffRefreshTokens(services, ended.staffRows),
  ]);
  return { endedSessions: ended.rows.length, globalSignOut, claimed: true };
}
