import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

/**
 * What a member's security record holds. The second factors' and passkeys' kinds come last, so those
 * flows record into the same table; a passkey added or removed is recorded with the device, browser and IP that did it.
 * Staff actions on the account are not copied here: the activity read takes them
 * from staff_audit_events.
 */
export const SECURITY_EVENT_KINDS = [
  /** A browser signed in: device, browser, IP, its session, and whether this member had used the browser before. */
  "sign-in",
  /**
   * The member confirmed their sign-up in this browser: its device-key hash makes the browser known, so its first
   * sign-in mails no alert.
   */
  "signed-up",
  /** Wrong passwords for the account, counted per member and hour (one row per window, see below). */
  "sign-in-refused",
  "sign-out",
  /** One of the member's other browsers signed out from /my/devices/, the device-limit screen or a sibling's API. */
  "device-deactivated",
  /**
   * "This wasn't me" (on /my/security/ or by the sign-in alert's link): a session ended by the member as not theirs,
   * who is then sent to change the password.
   */
  "session-reported",
  /** "Sign out all other devices". */
  "other-sessions-ended",
  "password-changed",
  "password-reset",
  "email-changed",
  "re-authenticated",
  "data-copy-downloaded",
  /** 2-step verification with an authenticator app turned on, or off by the member (staff's is in their audit log). */
  "second-factor-added",
  "second-factor-removed",
  /** A sign-in's second step passed with a recovery code instead of the app's code. */
  "recovery-code-used",
  /** "Make new codes": every earlier recovery code stopped working. */
  "recovery-codes-replaced",
  /**
   * The right password, then no second step within 15 minutes: codes refused or none tried (`attempts`: the refused
   * codes; `occurred_at` the first password, `last_occurred_at` the last try). One row per burst, never per code.
   */
  "second-step-failed",
  "passkey-added",
  "passkey-removed",
  /**
   * A second factor Cognito held that our record did not know (set up around our pages): an authenticator app,
   * removed at once; a passkey, refused at sign-in and removed once the member's server token allows.
   */
  "unknown-second-factor-removed",
  "unknown-passkey-found",
  "unknown-passkey-removed",
  /** 2-step verification switched off at Cognito around our pages while our record said on: switched on again. */
  "second-factor-restored",
] as const;

export type SecurityEventKind = (typeof SECURITY_EVENT_KINDS)[number];

/**
 * A member's security record: one row per event, append-only. A trigger (migration 0015) refuses every UPDATE but
 * the refused-sign-in counter's, and every DELETE but the purge's (app/domain/security/security-record.server.ts).
 * Refused sign-ins are one row per member and hour (`occurred_at` is the hour's start, so a row's place in the list
 * never moves) whose `attempts`, `last_occurred_at` and `ip_address` (the latest attempt's) grow: one row per attempt
 * would let anyone who knows an address fill that member's record.
 */
export const securityEvents = pgTable(
  "security_events",
  {
    id: bigint({ mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    sub: uuid().notNull(),
    kind: text().$type<SecurityEventKind>().notNull(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    /** The session the event is about (a sign-in's, the one signed out or ended), when there is one. */
    sessionId: uuid(),
    deviceName: text(),
    browser: text(),
    /** The client IP of the request that did it, as the app settles it (TRUST_PROXY_HOPS). */
    ipAddress: text(),
    /**
     * Sign-ins and the sign-up: hex SHA-256 of the browser's device key, which tells a browser the member used before
     * from a new one. Never shown nor copied out: it is the key's stand-in.
     */
    deviceKeyHash: text(),
    /**
     * Sign-ins: true when this member had neither signed in nor signed up from this browser before (within the
     * record's 400 days).
     */
    newBrowser: boolean(),
    /**
     * Counted kinds: refused sign-ins' attempts in the hour from occurred_at, a failed second step's refused codes;
     * and when the latest came.
     */
    attempts: integer().notNull().default(1),
    lastOccurredAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    // The activity page's keyset read: a member's events, newest first.
    index("security_events_member_idx").on(table.sub, table.occurredAt.desc(), table.id.desc()),
    // "Has this member signed in or up from this browser before?", asked by every sign-in's insert.
    index("security_events_member_browser_idx")
      .on(table.sub, table.deviceKeyHash)
      .where(sql`${table.kind} in ('sign-in', 'signed-up')`),
    // One counter row per member and hour, which the refused sign-in's upsert targets.
    uniqueIndex("security_events_refused_window_idx")
      .on(table.sub, table.occurredAt)
      .where(sql`${table.kind} = 'sign-in-refused'`),
    // The purge's 400-day cut.
    index("security_events_occurred_at_idx").on(table.occurredAt),
  ],
);
