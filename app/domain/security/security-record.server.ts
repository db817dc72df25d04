import { createHash } from "node:crypto";
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { type SecurityEventKind, memberDirectory, securityEvents } from "~db/schema";
import { recordAccountEvent } from "../events/account-events.server";
import { lockMember } from "../sessions/member-lock.server";

/** The security record keeps each event this long, then the purge deletes it. */
export const SECURITY_EVENT_RETENTION_DAYS = 400;
/** Refused sign-ins of one member are counted in windows of this length, one row each. */
export const REFUSED_SIGN_IN_WINDOW_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One event of a member's security record; everything but the member and the kind is optional. */
export interface SecurityEvent {
  sub: string;
  kind: SecurityEventKind;
  /** When it happened; the services' clock where the caller has one. */
  occurredAt?: Date | undefined;
  /** The session the event is about (the one that signed in, was signed out or ended). */
  sessionId?: string | null | undefined;
  deviceName?: string | null | undefined;
  browser?: string | null | undefined;
  /** The request's client IP (requestInfoContext's clientIp, or the API call's). */
  ipAddress?: string | null | undefined;
}

/**
 * Records one event in the member's security record. Call it with the transaction that makes the change it records,
 * so the record and the change commit or roll back together.
 */
export async function recordSecurityEvent(db: Database, event: SecurityEvent): Promise<void> {
  await db.insert(securityEvents).values(eventValues(event));
}

/** Several events at once (one statement), e.g. one per session a flow ended. */
export async function recordSecurityEvents(db: Database, events: SecurityEvent[]): Promise<void> {
  if (events.length > 0) await db.insert(securityEvents).values(events.map(eventValues));
}

function eventValues(event: SecurityEvent) {
  return {
    sub: event.sub,
    kind: event.kind,
    occurredAt: event.occurredAt ?? new Date(),
    sessionId: event.sessionId ?? null,
    deviceName: event.deviceName ?? null,
    browser: event.browser ?? null,
    ipAddress: event.ipAddress ?? null,
  };
}

/** Browsers are known by the hex SHA-256 of their device key: the cookie's value itself is never stored here. */
export function hashDeviceKey(deviceKey: string): string {
  return createHash("sha256").update(deviceKey, "utf8").digest("hex");
}

/**
 * The member's earlier sign-ins and sign-up from the browser whose device key hashes to `deviceKeyHash`: the one
 * definition of a known browser, which recordSignIn and isKnownBrowser share. Only keys our pages issued can match
 * a page's key: a sibling's registration through the API records the key in the API's namespace
 * (app/domain/sessions/device-keys.server.ts), a hash no key of the pages has (docs/security.md, "Known browsers").
 */
function eventsFromBrowser(db: Database, sub: string, deviceKeyHash: string) {
  return db
    .select({ id: securityEvents.id })
    .from(securityEvents)
    .where(
      and(
        eq(securityEvents.sub, sub),
        eq(securityEvents.deviceKeyHash, deviceKeyHash),
        inArray(securityEvents.kind, ["sign-in", "signed-up"]),
      ),
    );
}

/**
 * Whether this member has signed in or signed up from this browser on our pages before (within the record's 400
 * days): the sign-in alerts' "known browser". `deviceKeyHash` is hashDeviceKey of the key our pages issued the
 * browser (its `id_device` cookie); a key a sibling sent the API never makes a browser known. One look-up on
 * security_events_member_browser_idx.
 */
export async function isKnownBrowser(db: Database, sub: string, deviceKeyHash: string): Promise<boolean> {
  const earlier = await eventsFromBrowser(db, sub, deviceKeyHash).limit(1);
  return earlier.length > 0;
}

/** What the sign-in's event says about its browser, for the sign-in alert (app/domain/account/sign-in-alerts.server.ts). */
export interface RecordedSignIn {
  eventId: number;
  /** Neither an earlier sign-in nor the sign-up of this member came from this browser. */
  newBrowser: boolean;
  /** This member had signed in before (from any browser): false for their first sign-in ever. */
  signedInBefore: boolean;
}

/**
 * Records a sign-in, inside the transaction that starts its session (the sign-in's one extra write). Whether the
 * browser is new to this member (no earlier sign-in or sign-up from it: eventsFromBrowser), and whether they had
 * signed in before at all (a sibling's registration counts: it was a sign-in), are read by the same statement from
 * their earlier events (the member's lock is held, so two sign-ins cannot both be "first").
 */
export async function recordSignIn(
  tx: Database,
  input: Required<Pick<SecurityEvent, "sub" | "sessionId" | "deviceName" | "browser" | "ipAddress">> & {
    deviceKey: string;
    occurredAt: Date;
  },
): Promise<RecordedSignIn> {
  const deviceKeyHash = hashDeviceKey(input.deviceKey);
  const earlierFromThisBrowser = eventsFromBrowser(tx, input.sub, deviceKeyHash);
  const earlierSignIn = tx
    .select({ id: securityEvents.id })
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, input.sub), eq(securityEvents.kind, "sign-in")));
  const [row] = await tx
    .insert(securityEvents)
    .values({
      ...eventValues({ ...input, kind: "sign-in" }),
      deviceKeyHash,
      newBrowser: sql`not exists (${earlierFromThisBrowser})`,
    })
    .returning({
      id: securityEvents.id,
      newBrowser: securityEvents.newBrowser,
      // RETURNING reads the table as it was before this statement, so the new row is not its own "earlier".
      signedInBefore: sql<boolean>`exists (${earlierSignIn})`,
    });
  return { eventId: row!.id, newBrowser: row!.newBrowser === true, signedInBefore: row!.signedInBefore === true };
}

/**
 * Records the confirmation of a sign-up in the browser that did it: the browser is then known, so its first sign-in
 * mails no alert. The member's first sign-up event is the siblings' `member.created`, in the same transaction: the
 * code step runs this after Cognito confirmed, and a second submit of the step (a double click, or the member trying
 * again after a failure here) passes without confirming twice and records the sign-up again but no second
 * `member.created`.
 */
export async function recordSignUp(
  db: Database,
  input: {
    sub: string;
    /** The address the sign-up was made with (the member's `member.created`). */
    email: string;
    deviceKey: string;
    deviceName: string;
    browser: string;
    ipAddress: string;
    occurredAt: Date;
  },
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    const [earlier] = await tx
      .select({ id: securityEvents.id })
      .from(securityEvents)
      .where(and(eq(securityEvents.sub, input.sub), eq(securityEvents.kind, "signed-up")))
      .limit(1);
    await tx.insert(securityEvents).values({
      ...eventValues({ ...input, kind: "signed-up" }),
      deviceKeyHash: hashDeviceKey(input.deviceKey),
    });
    if (earlier) return;
    await recordAccountEvent(tx, {
      type: "member.created",
      sub: input.sub,
      occurredAt: input.occurredAt,
      data: { email: input.email, via: "sign-up" },
    });
  });
}

/**
 * Counts a wrong password for the account of `email`, when that address belongs to a member (read from the member
 * directory, so no Cognito call): one row per member and REFUSED_SIGN_IN_WINDOW_MS, its counter raised by one
 * atomic upsert. An address nobody has records nothing.
 */
export async function recordRefusedSignIn(
  db: Database,
  input: { email: string; ipAddress: string; now: Date },
): Promise<void> {
  const windowStart = new Date(Math.floor(input.now.getTime() / REFUSED_SIGN_IN_WINDOW_MS) * REFUSED_SIGN_IN_WINDOW_MS);
  const emailKey = input.email.trim().toLowerCase();
  // One statement (drizzle's insert … select wants every column): the owner's sub from the directory, by the
  // collate "C" form member_directory_email_key_idx is built on.
  await db.execute(sql`
    insert into ${securityEvents} (sub, kind, occurred_at, ip_address, last_occurred_at)
    select ${memberDirectory.sub}, 'sign-in-refused', ${windowStart.toISOString()}::timestamptz, ${input.ipAddress},
      ${input.now.toISOString()}::timestamptz
    from ${memberDirectory}
    where ${memberDirectory.emailKey} collate "C" = ${emailKey}
    on conflict (sub, occurred_at) where kind = 'sign-in-refused'
    do update set attempts = ${securityEvents}.attempts + 1, last_occurred_at = excluded.last_occurred_at,
      ip_address = excluded.ip_address`);
}

/**
 * Records a burst of second steps left unfinished after the right password (unfinished-second-steps.server.ts): one
 * row however many codes were tried, so its `attempts` are the refused codes (0: none was tried).
 */
export async function recordUnfinishedSecondStep(
  tx: Database,
  input: {
    sub: string;
    startedAt: Date;
    lastTriedAt: Date;
    refusedCodes: number;
    deviceName: string;
    browser: string;
    ipAddress: string;
  },
): Promise<void> {
  await tx.insert(securityEvents).values({
    ...eventValues({ ...input, kind: "second-step-failed", occurredAt: input.startedAt }),
    attempts: input.refusedCodes,
    lastOccurredAt: input.lastTriedAt,
  });
}

/** The append-only trigger lets this transaction delete (migration 0015): for the purge alone. */
async function allowPurge(tx: Database): Promise<void> {
  await tx.execute(sql`select set_config('member_account.security_events_purge', 'on', true)`);
}

/** Deletes events older than SECURITY_EVENT_RETENTION_DAYS before `now`. */
export async function purgeExpiredSecurityEvents(db: Database, now: Date): Promise<{ deleted: number }> {
  return db.transaction(async (tx) => {
    await allowPurge(tx);
    const deleted = await tx
      .delete(securityEvents)
      .where(lt(securityEvents.occurredAt, new Date(now.getTime() - SECURITY_EVENT_RETENTION_DAYS * DAY_MS)))
      .returning({ id: securityEvents.id });
    return { deleted: deleted.length };
  });
}

/** Deletes the whole record of purged members (cancelled past retention), inside the caller's purge transaction. */
export async function purgeSecurityEventsOf(tx: Database, subs: string[]): Promise<void> {
  if (subs.length === 0) return;
  await allowPurge(tx);
  await tx.delete(securityEvents).where(inArray(securityEvents.sub, subs));
}
