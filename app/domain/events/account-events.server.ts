import { count, eq, lt, lte, max, or, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { accountEventFeedHead, accountEvents, memberEventSequences, memberPasskeys } from "~db/schema";

/** Events are kept this long for the feed and redelivery, then the purge deletes them (with their deliveries). */
export const ACCOUNT_EVENT_RETENTION_DAYS = 30;

/** Why a session ended, as `session.revoked` says it. */
export type SessionRevokedReason =
  | "signed-out"
  | "device-deactivated"
  | "device-limit"
  | "signed-out-everywhere"
  | "password-changed"
  | "password-reset"
  | "password-unconfirmed"
  | "staff-ended-sessions"
  | "staff-disabled"
  | "reported-not-me"
  | "withdrawn"
  | "refresh-refused"
  | "replaced";

/**
 * Every event a sibling service can hear, with its data. `sid` names a session as a sibling holds it: the
 * `origin_jti` claim of every access token issued from that sign-in's refresh token (the session's own id when
 * Cognito gave none), so a sibling matches it against the tokens it keeps.
 */
export type AccountEvent =
  | { type: "member.created"; data: { email: string; via: "sign-up" | "import" | "legacy-migration" } }
  | { type: "member.updated"; data: { changed: Record<string, unknown> } }
  | { type: "member.email_changed"; data: { email: string } }
  | { type: "member.password_changed"; data: { via: "change" | "reset" | "first-sign-in" } }
  | { type: "member.two_step_changed"; data: { authenticatorApp: boolean } }
  | { type: "member.passkeys_changed"; data: { change: "added" | "removed"; passkeys: number } }
  | { type: "member.newsletter_changed"; data: { newsletter: boolean } }
  | { type: "member.disabled"; data: Record<string, never> }
  | { type: "member.enabled"; data: Record<string, never> }
  | { type: "member.withdrawn"; data: { withdrawnAt: string } }
  | { type: "member.deleted"; data: Record<string, never> }
  | { type: "session.created"; data: { sid: string; device: string; browser: string } }
  | { type: "session.revoked"; data: { sid: string; reason: SessionRevokedReason } };

export type AccountEventType = AccountEvent["type"];

export const ACCOUNT_EVENT_TYPES: readonly AccountEventType[] = [
  "member.created",
  "member.updated",
  "member.email_changed",
  "member.password_changed",
  "member.two_step_changed",
  "member.passkeys_changed",
  "member.newsletter_changed",
  "member.disabled",
  "member.enabled",
  "member.withdrawn",
  "member.deleted",
  "session.created",
  "session.revoked",
];

export function isAccountEventType(value: string): value is AccountEventType {
  return (ACCOUNT_EVENT_TYPES as readonly string[]).includes(value);
}

export type RecordedAccountEvent = AccountEvent & { sub: string; occurredAt: Date };

/**
 * Records events of one or more members. Call it with the transaction that makes the change the events tell of, so
 * they commit or roll back together: no event without its change, no change without its event. Each event takes
 * the member's next sequence number (one upsert per member: its row lock orders one member's events by commit).
 */
export async function recordAccountEvents(tx: Database, events: RecordedAccountEvent[]): Promise<void> {
  for (const event of events) {
    await tx.execute(sql`
      with next as (
        insert into ${memberEventSequences} (sub, last_sequence) values (${event.sub}, 1)
        on conflict (sub) do update set last_sequence = ${memberEventSequences}.last_sequence + 1
        returning last_sequence
      )
      insert into ${accountEvents} (type, sub, member_sequence, occurred_at, data)
      select ${event.type}, ${event.sub}, last_sequence, ${event.occurredAt.toISOString()}::timestamptz,
        ${JSON.stringify(event.data)}::jsonb
      from next`);
  }
}

export function recordAccountEvent(tx: Database, event: RecordedAccountEvent): Promise<void> {
  return recordAccountEvents(tx, [event]);
}

/**
 * The `sid` a sibling knows a session by: the `origin_jti` of its sign-in (the claim every access token issued from
 * that refresh token carries), else the session row's own id.
 */
export function sidOf(session: { id: string; originJti: string | null }): string {
  return session.originJti ?? session.id;
}

/**
 * A passkey added to or removed from the member's passkeys (Cognito's, as our list is their truth), with how many
 * our list holds now, in the transaction that changes our list or records the removal.
 */
export async function recordPasskeysChanged(
  tx: Database,
  input: { sub: string; change: "added" | "removed"; now: Date },
): Promise<void> {
  const [row] = await tx.select({ passkeys: count() }).from(memberPasskeys).where(eq(memberPasskeys.sub, input.sub));
  await recordAccountEvent(tx, {
    type: "member.passkeys_changed",
    sub: input.sub,
    occurredAt: input.now,
    data: { change: input.change, passkeys: row?.passkeys ?? 0 },
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Takes the feed head's row lock for the rest of the transaction and answers the last position given out. The
 * sequencer, the purge and the staff's endpoint enable each hold it while they touch event rows: one at a time, and
 * always this lock first, so they cannot deadlock.
 */
export async function lockFeedHead(tx: Database): Promise<number> {
  const [head] = await tx
    .select({ lastPosition: accountEventFeedHead.lastPosition })
    .from(accountEventFeedHead)
    .where(eq(accountEventFeedHead.id, 1))
    .for("update");
  return head!.lastPosition;
}

/**
 * Deletes events recorded more than ACCOUNT_EVENT_RETENTION_DAYS before `now` (their deliveries go with them, by the
 * foreign key's cascade), and with them any event numbered before one of those. The members' sequence rows stay, so
 * a member's next event never reuses a number.
 *
 * Why by position too: a transaction that commits late gets its feed position after events recorded later, so age
 * alone could delete position 7 and keep 6, and a reader at 6 would silently skip 7. Deleting whole prefixes keeps
 * the feed's positions one unbroken run from the oldest kept to the head, which is how the feed tells a reader that
 * its cursor fell behind the purge (readAccountEventFeed). What goes early is younger by no more than such a
 * transaction lasted. The head's row lock comes first, before any event row: it keeps the sequencer from numbering
 * an old event behind this cut, and the sequencer and the staff's endpoint enable hold it while they touch event
 * rows, so taking it later could deadlock with them. Within the purge's transaction it is held until that commits.
 */
export async function purgeExpiredAccountEvents(db: Database, now: Date): Promise<{ deleted: number }> {
  return db.transaction(async (tx) => {
    await lockFeedHead(tx);
    const expired = lt(accountEvents.recordedAt, new Date(now.getTime() - ACCOUNT_EVENT_RETENTION_DAYS * DAY_MS));
    const [cut] = await tx
      .select({ position: max(accountEvents.feedPosition) })
      .from(accountEvents)
      .where(expired);
    const deleted = await tx
      .delete(accountEvents)
      .where(cut?.position != null ? or(expired, lte(accountEvents.feedPosition, cut.position)) : expired)
      .returning({ id: accountEvents.id });
    return { deleted: deleted.length };
  });
}

/** What a sibling receives of a stored event. */
export type StoredAccountEvent = Pick<
  typeof accountEvents.$inferSelect,
  "id" | "type" | "sub" | "memberSequence" | "occurredAt" | "data"
>;

/** An event as every sibling receives it, pushed (the webhook's body) or read from the feed. */
export type AccountEventBody = AccountEvent & { id: string; timestamp: string; sub: string; sequence: number };

/** The body every sibling receives for an event, pushed or read from the feed. */
export function accountEventBodyOf(row: StoredAccountEvent): AccountEventBody {
  return {
    id: row.id,
    type: row.type,
    timestamp: row.occurredAt.toISOString(),
    sub: row.sub,
    sequence: row.memberSequence,
    data: row.data,
  } as AccountEventBody;
}
