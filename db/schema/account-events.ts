import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * What happened to a member, for the sibling services (app/domain/events/): written in the transaction that makes
 * the change, so an event exists exactly when its change committed. Delivered by push (event_deliveries) and read
 * through the ordered feed (`feed_position`). Kept ACCOUNT_EVENT_RETENTION_DAYS, then purged.
 */
export const accountEvents = pgTable(
  "account_events",
  {
    /** The event's id: the same on every delivery (Standard Webhooks' `webhook-id`), so receivers de-duplicate. */
    id: uuid().primaryKey().defaultRandom(),
    /** AccountEventType: `member.updated`, `session.revoked`… */
    type: text().notNull(),
    sub: uuid().notNull(),
    /** 1, 2, 3… per member in commit order of the member's changes: a receiver drops an event older than one it has. */
    memberSequence: bigint({ mode: "number" }).notNull(),
    occurredAt: timestamp({ withTimezone: true }).notNull(),
    /** The type's data (its schema is in the OpenAPI document's `webhooks`). Never a secret. */
    data: jsonb().$type<Record<string, unknown>>().notNull(),
    /**
     * The event's place in the feed, given after its transaction committed by the one sequencer that runs at a time
     * (publishAccountEvents): positions become visible in increasing order, so a reader past position C never
     * misses an event that commits later. Null until then.
     */
    feedPosition: bigint({ mode: "number" }),
    recordedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("account_events_member_sequence_idx").on(table.sub, table.memberSequence),
    uniqueIndex("account_events_feed_position_idx").on(table.feedPosition),
    // The sequencer's work: committed events still without a position, oldest first.
    index("account_events_unpublished_idx")
      .on(table.recordedAt)
      .where(sql`${table.feedPosition} is null`),
    index("account_events_recorded_at_idx").on(table.recordedAt),
  ],
);

/** The last sequence number given to each member's events (the row lock orders one member's events). */
export const memberEventSequences = pgTable("member_event_sequences", {
  sub: uuid().primaryKey(),
  lastSequence: bigint({ mode: "number" }).notNull(),
});

/**
 * The feed's head: the last position given. One row; the sequencer holds its row lock while it numbers events, so
 * one sequencer runs at a time on any instance and positions never go back, even after old events are purged.
 */
export const accountEventFeedHead = pgTable(
  "account_event_feed_head",
  {
    id: smallint().primaryKey(),
    lastPosition: bigint({ mode: "number" }).notNull(),
  },
  (table) => [check("account_event_feed_head_one_row", sql`${table.id} = 1`)],
);

/**
 * One event to one sibling service over one channel: `webhook` (a Standard Webhooks POST of the event) or `logout`
 * (an OpenID Connect back-channel logout token, for `session.revoked`). Claimed with a lease, so two instances never
 * send one row at once; retried on the schedule in app/domain/events/.
 */
export const eventDeliveries = pgTable(
  "event_deliveries",
  {
    id: uuid().primaryKey().defaultRandom(),
    eventId: uuid()
      .notNull()
      .references(() => accountEvents.id, { onDelete: "cascade" }),
    /** SiblingService: data, compe, online, shop. */
    service: text().notNull(),
    /** "webhook" | "logout". */
    channel: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    attempts: integer().notNull().default(0),
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** While in the future, one worker holds the row (it is sending); a crashed worker's lease runs out. */
    leasedUntil: timestamp({ withTimezone: true }),
    lastAttemptAt: timestamp({ withTimezone: true }),
    /** The receiver's HTTP status on the last attempt; null when no answer came (refused, timed out). */
    lastStatus: integer(),
    lastError: text(),
    deliveredAt: timestamp({ withTimezone: true }),
    /** Set when the schedule ran out or the endpoint was disabled: not tried again unless staff redeliver it. */
    failedAt: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("event_deliveries_event_service_channel_idx").on(table.eventId, table.service, table.channel),
    // The worker's claim: the oldest due delivery still to send.
    index("event_deliveries_due_idx")
      .on(table.nextAttemptAt)
      .where(sql`${table.deliveredAt} is null and ${table.failedAt} is null`),
    // The staff page: a service's recent deliveries.
    index("event_deliveries_service_created_idx").on(table.service, table.createdAt),
  ],
);

/**
 * The health of each sibling service's endpoints, as deliveries find it (no row: healthy, never failed). A 410 or
 * ENDPOINT_FAILING_DISABLE_MS of failures disables the service's deliveries until staff enable them again.
 */
export const siblingEndpoints = pgTable("sibling_endpoints", {
  /** SiblingService. */
  service: text().primaryKey(),
  /** The first failed attempt since the last success; null while healthy. */
  failingSince: timestamp({ withTimezone: true }),
  disabledAt: timestamp({ withTimezone: true }),
  /** "gone" (the receiver answered 410) | "failing" (failures for ENDPOINT_FAILING_DISABLE_MS). */
  disabledReason: text(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
