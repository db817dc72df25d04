import { asc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { accountEventFeedHead, accountEvents, eventDeliveries, siblingEndpoints } from "~db/schema";
import { SIBLING_SERVICES, type SiblingEventSettings, type SiblingService } from "~/config.server";
import { type AccountEventType, lockFeedHead } from "./account-events.server";

/** Events numbered per sequencer run; the rest wait for the next run, which follows at once. */
export const PUBLISH_BATCH_SIZE = 500;

export type DeliveryChannel = "webhook" | "logout";

export type SiblingEventsSettings = Record<SiblingService, SiblingEventSettings>;

/** The channels over which `service` hears an event of `type` (none when it subscribed to neither). */
export function channelsFor(settings: SiblingEventSettings, type: string): DeliveryChannel[] {
  const channels: DeliveryChannel[] = [];
  const { webhook } = settings;
  if (webhook && (webhook.eventTypes === null || webhook.eventTypes.includes(type as AccountEventType))) {
    channels.push("webhook");
  }
  if (settings.logoutUri && type === "session.revoked") channels.push("logout");
  return channels;
}

/** The services whose deliveries are disabled (a 410, or failing too long) until staff enable them again. */
export async function disabledServices(db: Database): Promise<Set<string>> {
  const rows = await db
    .select({ service: siblingEndpoints.service })
    .from(siblingEndpoints)
    .where(isNotNull(siblingEndpoints.disabledAt));
  return new Set(rows.map((row) => row.service));
}

/** Whether committed events wait for their feed position (one look-up on account_events_unpublished_idx). */
async function hasUnpublishedEvents(db: Database): Promise<boolean> {
  const rows = await db
    .select({ id: accountEvents.id })
    .from(accountEvents)
    .where(isNull(accountEvents.feedPosition))
    .limit(1);
  return rows.length > 0;
}

/**
 * The sequencer: gives committed events without a feed position the next positions, oldest first, and queues their
 * deliveries to every enabled sibling service subscribed to them, in one transaction. It holds the feed head's row
 * lock throughout, so one run at a time on any instance numbers events, each run's positions become visible at once
 * when it commits, and a later run's are all higher. A reader that has seen position C therefore never finds a
 * smaller position later: an event whose transaction commits late is simply numbered late. Returns how many events
 * it published (PUBLISH_BATCH_SIZE at most: call again while it returns that many).
 */
export async function publishAccountEvents(db: Database, settings: SiblingEventsSettings, now: Date): Promise<number> {
  if (!(await hasUnpublishedEvents(db))) return 0;
  return db.transaction(async (tx) => {
    const lastPosition = await lockFeedHead(tx);
    const events = await tx
      .select({ id: accountEvents.id, type: accountEvents.type })
      .from(accountEvents)
      .where(isNull(accountEvents.feedPosition))
      .orderBy(asc(accountEvents.recordedAt), asc(accountEvents.memberSequence), asc(accountEvents.id))
      .limit(PUBLISH_BATCH_SIZE);
    if (events.length === 0) return 0;
    const first = lastPosition + 1;
    const ids = events.map((event) => event.id);
    await tx.execute(sql`
      update ${accountEvents} set feed_position = ${first - 1} + numbered.ordinality
      from unnest(${`{${ids.join(",")}}`}::uuid[]) with ordinality as numbered(id, ordinality)
      where ${accountEvents.id} = numbered.id`);
    await tx
      .update(accountEventFeedHead)
      .set({ lastPosition: lastPosition + events.length })
      .where(eq(accountEventFeedHead.id, 1));
    await queueDeliveries(tx, settings, events, now, await disabledServices(tx));
    return events.length;
  });
}

/**
 * Queues each event's deliveries to the services subscribed to it (skipping `disabled` ones); an existing delivery
 * of the same event, service and channel is left as it is.
 */
export async function queueDeliveries(
  tx: Database,
  settings: SiblingEventsSettings,
  events: { id: string; type: string }[],
  now: Date,
  disabled: ReadonlySet<string> = new Set(),
): Promise<number> {
  const rows = events.flatMap((event) =>
    SIBLING_SERVICES.filter((service) => !disabled.has(service)).flatMap((service) =>
      channelsFor(settings[service], event.type).map((channel) => ({
        eventId: event.id,
        service,
        channel,
        createdAt: now,
        nextAttemptAt: now,
      })),
    ),
  );
  if (rows.length === 0) return 0;
  const inserted = await tx
    .insert(eventDeliveries)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: eventDeliveries.id });
  return inserted.length;
}
