import { createHash, timingSafeEqual } from "node:crypto";
import { asc, eq, gt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { accountEventFeedHead, accountEvents } from "~db/schema";
import { SIBLING_SERVICES, type SiblingService } from "~/config.server";
import { type RateLimitPolicy, hitRateLimit } from "~/domain/limits/rate-limit.server";
import { type AccountEventBody, accountEventBodyOf } from "./account-events.server";
import { type SiblingEventsSettings, publishAccountEvents } from "./event-publishing.server";

/**
 * The ordered feed of account events (GET /api/events), read by a sibling service with its own credential as the
 * fallback to pushed deliveries, or instead of them.
 *
 * Why a reader never misses an event that commits late: an event gets its feed position only after its transaction
 * committed, from the sequencer (publishAccountEvents), which numbers committed events one run at a time under the
 * feed head's row lock and commits each run's positions at once. A run starts only after the previous one committed,
 * so every position a later run gives is higher than every position already visible. An event whose transaction is
 * still open when a reader passes position C has no position yet; when it commits, the next run numbers it above
 * C, and the reader finds it on its next page. Numbering at insert time (a sequence or an identity column) would
 * break this: a slow transaction holding number 7 could commit after a reader saw 8 and moved its cursor past 7.
 */

export const FEED_PAGE_SIZE_DEFAULT = 100;
export const FEED_PAGE_SIZE_MAX = 500;

/**
 * Reads per sibling service: a reader polling every second, or catching up on a day's events page by page, stays
 * well inside it; a runaway loop (a cursor never advanced) is stopped before it loads the database.
 */
export const FEED_READS_PER_SERVICE = {
  scope: "event-feed:service",
  limit: 600,
  windowMs: 60_000,
} satisfies RateLimitPolicy;

/** A feed position as the cursor carries it: a decimal string, no sign, no leading zero, a safe integer. */
const CURSOR = /^(0|[1-9]\d{0,14})$/;

export const AccountEventFeedParams = z.object({
  after: z
    .string()
    .regex(CURSOR, "validation.inputError")
    .optional()
    .describe(
      "The `next_cursor` of the previous page; omit it (or send 0) to start from the oldest event kept. 410 cursor_expired when events after it have been deleted.",
    ),
  limit: z.coerce
    .number()
    .int("validation.inputError")
    .min(1, "validation.inputError")
    .max(FEED_PAGE_SIZE_MAX, "validation.inputError")
    .optional()
    .describe(`Events per page, 1 to ${FEED_PAGE_SIZE_MAX} (${FEED_PAGE_SIZE_DEFAULT} when omitted).`),
});
export type AccountEventFeedQuery = z.output<typeof AccountEventFeedParams>;

/** An event as the feed gives it: the webhook's body, with its feed position. */
export type FeedEvent = AccountEventBody & { position: number };

export interface FeedPage {
  events: FeedEvent[];
  /** The position of the last event returned, or the cursor sent when there was none: never goes back. */
  next_cursor: string;
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * The sibling service whose feed credential `token` is, or null. Every configured credential of every service is
 * compared, each in constant time over SHA-256 digests (equal lengths, whatever was sent), and the loop never stops
 * early, so the time taken tells a guesser neither how much of a credential matched nor which service has one.
 */
export function feedServiceOf(settings: SiblingEventsSettings, token: string): SiblingService | null {
  const sent = sha256(token);
  let match: SiblingService | null = null;
  for (const service of SIBLING_SERVICES) {
    for (const candidate of settings[service].feedTokens) {
      if (timingSafeEqual(sent, sha256(candidate)) && match === null) match = service;
    }
  }
  return match;
}

/** Counts one read of the feed by `service`; false when the service is over FEED_READS_PER_SERVICE. */
export async function countFeedRead(
  db: Database,
  service: SiblingService,
  now: Date,
): Promise<{ allowed: boolean; retryAfterS: number }> {
  const { allowed, retryAfterS } = await hitRateLimit(db, { ...FEED_READS_PER_SERVICE, subject: service, now });
  return { allowed, retryAfterS };
}

/** What a read of the feed gives: a page, or the news that events after the reader's cursor were purged. */
export type FeedRead = { kind: "page"; page: FeedPage } | { kind: "cursorExpired" };

/**
 * One page of the feed: the events after position `after`, in position order, at most `limit`. The sequencer runs
 * first, so events committed by now are on the page rather than waiting for the delivery worker's next run. One run
 * numbers at most PUBLISH_BATCH_SIZE events: under a larger backlog the reader gets what is numbered and the rest on
 * its next read, never out of order.
 *
 * A cursor whose next positions the purge has deleted has missed events, and the reader is told so (`cursorExpired`)
 * rather than handed the events after the gap. Positions are given one after another without gaps (one sequencer
 * run at a time, its numbering and the head's move committed together), and the purge deletes whole prefixes
 * (purgeExpiredAccountEvents), so what is kept is one unbroken run up to the head: the cursor has expired when it
 * lies below the oldest position kept less one (or below the head when nothing is kept). No cursor (or 0) means
 * "from the oldest kept" and never expires; a cursor beyond the head just waits for newer events.
 */
export async function readAccountEventFeed(
  db: Database,
  settings: SiblingEventsSettings,
  input: { query: AccountEventFeedQuery; now: Date },
): Promise<FeedRead> {
  const after = input.query.after ?? "0";
  const limit = input.query.limit ?? FEED_PAGE_SIZE_DEFAULT;
  await publishAccountEvents(db, settings, input.now);
  const rows = await db
    .select({
      id: accountEvents.id,
      type: accountEvents.type,
      sub: accountEvents.sub,
      memberSequence: accountEvents.memberSequence,
      occurredAt: accountEvents.occurredAt,
      data: accountEvents.data,
      position: accountEvents.feedPosition,
    })
    .from(accountEvents)
    .where(gt(accountEvents.feedPosition, Number(after)))
    .orderBy(asc(accountEvents.feedPosition))
    .limit(limit);
  // Checked after the page, not before: a purge only takes more away, so a cursor the purge has not passed now had
  // nothing taken from under the page either.
  if (after !== "0" && Number(after) + 1 < (await firstKeptPosition(db))) return { kind: "cursorExpired" };
  const events = rows.map((row) => ({ ...accountEventBodyOf(row), position: row.position! }));
  return { kind: "page", page: { events, next_cursor: events.length > 0 ? String(events.at(-1)!.position) : after } };
}

/**
 * The oldest position the feed keeps, or the next one to be given when the purge has taken them all. One statement,
 * so the two figures come from one snapshot: a run of the sequencer between two reads would make a kept event look
 * purged.
 */
async function firstKeptPosition(db: Database): Promise<number> {
  const [bounds] = await db
    .select({
      // A bigint as the driver gives it (PGlite a number, postgres.js a string); null when nothing is kept.
      oldest: sql<number | string | null>`(select min(${accountEvents.feedPosition}) from ${accountEvents})`,
      head: accountEventFeedHead.lastPosition,
    })
    .from(accountEventFeedHead)
    .where(eq(accountEventFeedHead.id, 1));
  return bounds!.oldest === null ? bounds!.head + 1 : Number(bounds!.oldest);
}
