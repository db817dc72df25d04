import { type AnyColumn, type SQL, and, desc, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { type SecurityEventKind, memberSessions, securityEvents, staffAuditEvents } from "~db/schema";

/** The activity page shows this many days of the record (the record itself keeps 400). */
export const SECURITY_ACTIVITY_DAYS = 90;
/** Entries per page. */
export const SECURITY_ACTIVITY_PAGE_SIZE = 20;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One line of the member's activity: an event of their security record, or a staff action on their account. */
export type ActivityEntry =
  | {
      source: "member";
      id: number;
      kind: SecurityEventKind;
      occurredAt: Date;
      sessionId: string | null;
      deviceName: string | null;
      browser: string | null;
      ipAddress: string | null;
      newBrowser: boolean | null;
      /**
       * Counted kinds (refused sign-ins, unfinished second steps): the attempts, and the latest one's time, which
       * is the entry's place in the list (a refused sign-in's occurredAt is only its hour's start).
       */
      attempts: number;
      lastOccurredAt: Date | null;
      /** A sign-in whose session is still signed in. */
      live: boolean;
      /** A sign-in of the asking browser's own session. */
      current: boolean;
    }
  | {
      source: "staff";
      id: number;
      /** The staff audit log's action, e.g. user.disable; who did it is not shown to the member. */
      action: string;
      occurredAt: Date;
    };

export interface ActivityPage {
  entries: ActivityEntry[];
  /** The opaque cursor of the next (older) page, or null on the last one. */
  olderCursor: string | null;
}

/**
 * Where a page starts: just after the entry with this time (microseconds since the epoch, PostgreSQL's precision),
 * source and id. The two sources interleave in one order: time, then the member's own events before staff actions
 * of the same microsecond, then id; every part is descending.
 */
interface Position {
  micros: bigint;
  /** 1: the security record, 0: the staff audit log. */
  rank: 0 | 1;
  id: number;
}

const CURSOR_FORMAT = /^(\d{1,20})\.([01])\.(\d{1,15})$/;

function encodeCursor(position: Position): string {
  return Buffer.from(`${position.micros}.${position.rank}.${position.id}`, "utf8").toString("base64url");
}

/** Null for anything that is not a cursor of ours (the first page is shown instead). */
export function decodeCursor(cursor: string | null): Position | null {
  if (!cursor) return null;
  const match = CURSOR_FORMAT.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) return null;
  return { micros: BigInt(match[1]!), rank: match[2] === "1" ? 1 : 0, id: Number(match[3]) };
}

/** The exact timestamptz of a cursor's microseconds, as PostgreSQL reads it. */
function timestampOf(micros: bigint): SQL {
  const millis = micros / 1000n;
  const iso = new Date(Number(millis)).toISOString();
  const text = `${iso.slice(0, 23)}${(micros % 1000n).toString().padStart(3, "0")}Z`;
  return sql`${text}::timestamptz`;
}

/** The rows of a source that come after `from`, for a source of rank `rank`. */
function after(from: Position | null, rank: 0 | 1, occurredAt: AnyColumn | SQL, id: AnyColumn): SQL | undefined {
  if (!from) return undefined;
  const at = timestampOf(from.micros);
  if (from.rank === rank) return sql`(${occurredAt}, ${id}) < (${at}, ${from.id})`;
  // A member event at the cursor's microsecond comes before any staff action of it, so after a member event the
  // staff actions of that microsecond are still to come, and after a staff action no member event of it is.
  return rank < from.rank ? sql`${occurredAt} <= ${at}` : sql`${occurredAt} < ${at}`;
}

const micros = (column: AnyColumn | SQL) => sql<string>`(extract(epoch from ${column}) * 1000000)::bigint::text`;

/**
 * When a member event happened as the page orders it: a counted event (refused sign-ins, an unfinished second step)
 * by its latest attempt, so a failed sign-in sits where it happened rather than at its hour's start.
 */
const activityAt = sql`coalesce(${securityEvents.lastOccurredAt}, ${securityEvents.occurredAt})`;

/**
 * One page of the member's activity over the last SECURITY_ACTIVITY_DAYS, newest first: their security record and
 * the staff actions on their account (from staff_audit_events, not copied). Keyset pages: each source is read after
 * the cursor, at most a page of each, then merged. The member's rows are found by their index (member and time) and
 * sorted by activityAt: at most 90 days of one member's record, whose refused sign-ins are one row an hour.
 */
export async function listSecurityActivity(
  db: Database,
  input: { sub: string; currentSessionId: string; cursor: string | null; now: Date; pageSize?: number },
): Promise<ActivityPage> {
  const pageSize = input.pageSize ?? SECURITY_ACTIVITY_PAGE_SIZE;
  const since = new Date(input.now.getTime() - SECURITY_ACTIVITY_DAYS * DAY_MS);
  const from = decodeCursor(input.cursor);
  const [memberRows, staffRows] = await Promise.all([
    db
      .select({
        id: securityEvents.id,
        kind: securityEvents.kind,
        occurredAt: securityEvents.occurredAt,
        micros: micros(activityAt),
        sessionId: securityEvents.sessionId,
        deviceName: securityEvents.deviceName,
        browser: securityEvents.browser,
        ipAddress: securityEvents.ipAddress,
        newBrowser: securityEvents.newBrowser,
        attempts: securityEvents.attempts,
        lastOccurredAt: securityEvents.lastOccurredAt,
        liveSessionId: memberSessions.id,
      })
      .from(securityEvents)
      .leftJoin(
        memberSessions,
        and(
          eq(securityEvents.kind, "sign-in"),
          eq(memberSessions.id, securityEvents.sessionId),
          isNull(memberSessions.revokedAt),
          isNotNull(memberSessions.activatedAt),
        ),
      )
      .where(
        and(
          eq(securityEvents.sub, input.sub),
          gte(securityEvents.occurredAt, since),
          after(from, 1, activityAt, securityEvents.id),
        ),
      )
      .orderBy(desc(activityAt), desc(securityEvents.id))
      .limit(pageSize + 1),
    db
      .select({
        id: staffAuditEvents.id,
        action: staffAuditEvents.action,
        occurredAt: staffAuditEvents.occurredAt,
        micros: micros(staffAuditEvents.occurredAt),
      })
      .from(staffAuditEvents)
      .where(
        and(
          eq(staffAuditEvents.targetSub, input.sub),
          gte(staffAuditEvents.occurredAt, since),
          after(from, 0, staffAuditEvents.occurredAt, staffAuditEvents.id),
        ),
      )
      .orderBy(desc(staffAuditEvents.occurredAt), desc(staffAuditEvents.id))
      .limit(pageSize + 1),
  ]);
  const merged = [
    ...memberRows.map(({ micros: at, liveSessionId, ...row }) => ({
      position: { micros: BigInt(at), rank: 1 as const, id: row.id },
      entry: {
        source: "member" as const,
        ...row,
        live: liveSessionId !== null,
        current: row.sessionId !== null && row.sessionId === input.currentSessionId,
      },
    })),
    ...staffRows.map(({ micros: at, ...row }) => ({
      position: { micros: BigInt(at), rank: 0 as const, id: row.id },
      entry: { source: "staff" as const, ...row },
    })),
  ].sort((a, b) => comparePositions(b.position, a.position));
  const page = merged.slice(0, pageSize);
  const last = page.at(-1);
  return {
    entries: page.map((item) => item.entry),
    olderCursor: merged.length > pageSize && last ? encodeCursor(last.position) : null,
  };
}

function comparePositions(a: Position, b: Position): number {
  if (a.micros !== b.micros) return a.micros < b.micros ? -1 : 1;
  if (a.rank !== b.rank) return a.rank - b.rank;
  return a.id - b.id;
}

/**
 * When the member last changed or reset their password, as their security record (400 days) knows it; null when it
 * holds no such change.
 */
export async function findLastPasswordChange(db: Database, sub: string): Promise<Date | null> {
  const [row] = await db
    .select({ occurredAt: securityEvents.occurredAt })
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, sub), inArray(securityEvents.kind, ["password-changed", "password-reset"])))
    .orderBy(desc(securityEvents.occurredAt))
    .limit(1);
  return row?.occurredAt ?? null;
}
