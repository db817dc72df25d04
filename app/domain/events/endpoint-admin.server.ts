import { and, desc, eq, gte, inArray, isNotNull, isNull, lt, min, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { accountEvents, eventDeliveries, siblingEndpoints } from "~db/schema";
import { SIBLING_SERVICES, type SiblingEventSettings, type SiblingService } from "~/config.server";
import { type StaffAction, type StaffActor, recordStaffAction } from "../staff/staff-audit-log.server";
import { ACCOUNT_EVENT_TYPES, type AccountEventType, lockFeedHead } from "./account-events.server";
import { type DeliveryChannel, type SiblingEventsSettings, channelsFor } from "./event-publishing.server";

/**
 * What staff see of the sibling services' deliveries and what they may do about them (the staff page
 * /admin/events/): redeliver one event, every event since a time, or enable a disabled endpoint from a time. Each
 * verb only changes rows; the delivery worker sends what they queue. A requeued delivery counts as queued anew
 * (`created_at` now): it rises to the top of the service's recent deliveries, and the undelivered-age gauge measures
 * it from then, so a replay of last week's events reads as fresh work rather than a week-old backlog.
 */

/**
 * The deliveries the staff page shows, newest first: a few of each service's beside the others, the last 50 on a
 * service's own view. Every row rides in the page's data (two ids and times), which counts against the staff pages'
 * JavaScript budget: four services' 50 would not fit it.
 */
export const RECENT_DELIVERIES_PER_SERVICE = 50;
export const RECENT_DELIVERIES_IN_OVERVIEW = 10;

const DELIVERY_CHANNELS: readonly DeliveryChannel[] = ["webhook", "logout"];

export type EndpointState =
  | { kind: "notConfigured" }
  | { kind: "healthy" }
  | { kind: "failing"; since: Date }
  | { kind: "disabled"; since: Date; reason: "gone" | "failing" };

export interface DeliveryRow {
  eventId: string;
  eventType: string;
  channel: string;
  attempts: number;
  lastStatus: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

export interface SiblingEndpointOverview {
  service: SiblingService;
  /** Where webhooks go, without credentials, query or fragment (a URL may carry a token); null: no webhooks. */
  webhookUrl: string | null;
  /** The event types it hears by webhook; null: every type. */
  eventTypes: readonly AccountEventType[] | null;
  logoutUri: string | null;
  feedAccess: boolean;
  state: EndpointState;
  deliveries: DeliveryRow[];
}

/** A URL as staff may read it: userinfo, query and fragment can hold secrets, and the host and path say where. */
function withoutSecrets(raw: string): string {
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.toString();
}

function isPushConfigured(settings: SiblingEventSettings): boolean {
  return settings.webhook !== null || settings.logoutUri !== null;
}

function stateOf(
  settings: SiblingEventSettings,
  endpoint: { failingSince: Date | null; disabledAt: Date | null; disabledReason: string | null } | undefined,
): EndpointState {
  if (!isPushConfigured(settings)) return { kind: "notConfigured" };
  if (endpoint?.disabledAt) {
    return {
      kind: "disabled",
      since: endpoint.disabledAt,
      reason: endpoint.disabledReason === "gone" ? "gone" : "failing",
    };
  }
  if (endpoint?.failingSince) return { kind: "failing", since: endpoint.failingSince };
  return { kind: "healthy" };
}

/** The most recent deliveries to one service (event_deliveries_service_created_idx serves it). */
function recentDeliveries(db: Database, service: SiblingService, limit: number): Promise<DeliveryRow[]> {
  return db
    .select({
      eventId: eventDeliveries.eventId,
      eventType: accountEvents.type,
      channel: eventDeliveries.channel,
      attempts: eventDeliveries.attempts,
      lastStatus: eventDeliveries.lastStatus,
      lastAttemptAt: eventDeliveries.lastAttemptAt,
      nextAttemptAt: eventDeliveries.nextAttemptAt,
      deliveredAt: eventDeliveries.deliveredAt,
      failedAt: eventDeliveries.failedAt,
    })
    .from(eventDeliveries)
    .innerJoin(accountEvents, eq(accountEvents.id, eventDeliveries.eventId))
    .where(eq(eventDeliveries.service, service))
    .orderBy(desc(eventDeliveries.createdAt), desc(eventDeliveries.id))
    .limit(limit);
}

/**
 * The sibling services (`services`, every one by default): what each is configured for (never a secret), its state
 * and its `deliveriesPerService` most recent deliveries.
 */
export async function listSiblingEndpoints(
  db: Database,
  settings: SiblingEventsSettings,
  {
    services = SIBLING_SERVICES,
    deliveriesPerService,
  }: { services?: readonly SiblingService[]; deliveriesPerService: number },
): Promise<SiblingEndpointOverview[]> {
  const [endpoints, ...deliveries] = await Promise.all([
    db.select().from(siblingEndpoints),
    ...services.map((service) => recentDeliveries(db, service, deliveriesPerService)),
  ]);
  return services.map((service, index) => {
    const serviceSettings = settings[service];
    return {
      service,
      webhookUrl: serviceSettings.webhook ? withoutSecrets(serviceSettings.webhook.url) : null,
      eventTypes: serviceSettings.webhook?.eventTypes ?? null,
      logoutUri: serviceSettings.logoutUri ? withoutSecrets(serviceSettings.logoutUri) : null,
      feedAccess: serviceSettings.feedTokens.length > 0,
      state: stateOf(
        serviceSettings,
        endpoints.find((endpoint) => endpoint.service === service),
      ),
      deliveries: deliveries[index]!,
    };
  });
}

/** The admin acting, and the request the action came in (the audit event quotes it). */
export interface EndpointAdminActor extends StaffActor {
  requestId: string;
}

/** Why a staff request changed nothing; the page says it on the form. */
export type EndpointRefusal =
  | { kind: "notFound" }
  | { kind: "notConfigured" }
  | { kind: "notSubscribed" }
  | { kind: "endpointDisabled" }
  | { kind: "notDisabled" }
  | { kind: "timeInFuture" };

function audit(
  tx: Database,
  actor: EndpointAdminActor,
  action: StaffAction,
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
) {
  return recordStaffAction(tx, {
    actor: { sub: actor.sub, email: actor.email },
    requestId: actor.requestId,
    action,
    targetSub: null,
    before,
    after,
  });
}

async function isDisabled(db: Database, service: SiblingService): Promise<boolean> {
  const [row] = await db
    .select({ service: siblingEndpoints.service })
    .from(siblingEndpoints)
    .where(and(eq(siblingEndpoints.service, service), isNotNull(siblingEndpoints.disabledAt)));
  return row !== undefined;
}

/**
 * Sends one delivery again: attempts from 0, due now, neither delivered nor failed. The event's id is unchanged, so
 * the receiver gets the same `webhook-id` (or the same logout token's `jti`) and de-duplicates as on any retry.
 * Refused for a disabled endpoint (enable it first) and for a channel the service no longer hears.
 */
export async function redeliverEvent(
  db: Database,
  settings: SiblingEventsSettings,
  actor: EndpointAdminActor,
  request: { service: SiblingService; eventId: string; channel: DeliveryChannel },
  now: Date,
): Promise<{ kind: "queued"; eventId: string } | EndpointRefusal> {
  const { service, eventId, channel } = request;
  const thisDelivery = and(
    eq(eventDeliveries.eventId, eventId),
    eq(eventDeliveries.service, service),
    eq(eventDeliveries.channel, channel),
  );
  const [delivery] = await db
    .select({ eventId: eventDeliveries.eventId, channel: eventDeliveries.channel, type: accountEvents.type })
    .from(eventDeliveries)
    .innerJoin(accountEvents, eq(accountEvents.id, eventDeliveries.eventId))
    .where(thisDelivery);
  if (!delivery) return { kind: "notFound" };
  if (!channelsFor(settings[service], delivery.type).includes(delivery.channel as DeliveryChannel)) {
    return { kind: "notSubscribed" };
  }
  if (await isDisabled(db, service)) return { kind: "endpointDisabled" };
  await db.transaction(async (tx) => {
    await tx
      .update(eventDeliveries)
      .set({ attempts: 0, nextAttemptAt: now, createdAt: now, deliveredAt: null, failedAt: null })
      .where(thisDelivery);
    await audit(tx, actor, "events.redeliver", null, {
      service,
      eventId: delivery.eventId,
      eventType: delivery.type,
      channel: delivery.channel,
    });
  });
  return { kind: "queued", eventId: delivery.eventId };
}

/**
 * Queues a delivery of every published event recorded at or after `since` that `service` hears, over each channel
 * it hears it on: a new row where there was none, an existing one reset as redeliverEvent does. `onlyUndelivered`
 * leaves the delivered ones alone. Events not yet published are queued by the sequencer as it numbers them.
 */
async function queueSince(
  tx: Database,
  settings: SiblingEventSettings,
  service: SiblingService,
  since: Date,
  now: Date,
  { onlyUndelivered }: { onlyUndelivered: boolean },
): Promise<number> {
  let queued = 0;
  const nowText = now.toISOString();
  for (const channel of DELIVERY_CHANNELS) {
    const types = ACCOUNT_EVENT_TYPES.filter((type) => channelsFor(settings, type).includes(channel));
    if (types.length === 0) continue;
    const rows = await tx
      .insert(eventDeliveries)
      .select(
        tx
          .select({
            // Drizzle's insert … select takes every column, in the table's order.
            id: sql<string>`gen_random_uuid()`.as("id"),
            eventId: accountEvents.id,
            service: sql<string>`${service}::text`.as("service"),
            channel: sql<string>`${channel}::text`.as("channel"),
            createdAt: sql<Date>`${nowText}::timestamptz`.as("created_at"),
            attempts: sql<number>`0`.as("attempts"),
            nextAttemptAt: sql<Date>`${nowText}::timestamptz`.as("next_attempt_at"),
            leasedUntil: sql<Date | null>`null::timestamptz`.as("leased_until"),
            lastAttemptAt: sql<Date | null>`null::timestamptz`.as("last_attempt_at"),
            lastStatus: sql<number | null>`null::integer`.as("last_status"),
            lastError: sql<string | null>`null::text`.as("last_error"),
            deliveredAt: sql<Date | null>`null::timestamptz`.as("delivered_at"),
            failedAt: sql<Date | null>`null::timestamptz`.as("failed_at"),
          })
          .from(accountEvents)
          .where(
            and(
              gte(accountEvents.recordedAt, since),
              inArray(accountEvents.type, types),
              isNotNull(accountEvents.feedPosition),
            ),
          ),
      )
      .onConflictDoUpdate({
        target: [eventDeliveries.eventId, eventDeliveries.service, eventDeliveries.channel],
        set: { attempts: 0, nextAttemptAt: now, createdAt: now, deliveredAt: null, failedAt: null },
        setWhere: onlyUndelivered ? isNull(eventDeliveries.deliveredAt) : undefined,
      })
      .returning({ id: eventDeliveries.id });
    queued += rows.length;
  }
  return queued;
}

/**
 * "Redeliver since T": every event recorded at or after `since` that the service hears is sent again, delivered or
 * not, and nothing recorded before it. Refused for a service with no webhook or logout URI, and for a disabled
 * endpoint (enabling it chooses from when).
 */
export async function redeliverSince(
  db: Database,
  settings: SiblingEventsSettings,
  actor: EndpointAdminActor,
  request: { service: SiblingService; since: Date },
  now: Date,
): Promise<{ kind: "queued"; deliveries: number } | EndpointRefusal> {
  const { service, since } = request;
  if (!isPushConfigured(settings[service])) return { kind: "notConfigured" };
  if (since > now) return { kind: "timeInFuture" };
  if (await isDisabled(db, service)) return { kind: "endpointDisabled" };
  const deliveries = await db.transaction(async (tx) => {
    const queued = await queueSince(tx, settings[service], service, since, now, { onlyUndelivered: false });
    await audit(tx, actor, "events.redeliver-since", null, {
      service,
      since: since.toISOString(),
      deliveries: queued,
    });
    return queued;
  });
  return { kind: "queued", deliveries };
}

/**
 * Enables a disabled endpoint from a time: its failure marks are cleared, the events recorded since `from` that it
 * has not received are queued, and the older ones it never got are marked failed, so they are not sent (no flood of
 * stale events; "redeliver since" can still send them). Runs under the feed head's row lock, which the sequencer
 * holds while it publishes: an event it publishes meanwhile is either queued by it (it sees the endpoint enabled) or
 * visible here, never skipped by both.
 */
export async function enableEndpointFrom(
  db: Database,
  settings: SiblingEventsSettings,
  actor: EndpointAdminActor,
  request: { service: SiblingService; from: Date },
  now: Date,
): Promise<{ kind: "enabled"; deliveries: number } | EndpointRefusal> {
  const { service, from } = request;
  if (from > now) return { kind: "timeInFuture" };
  return db.transaction(async (tx) => {
    await lockFeedHead(tx);
    const [endpoint] = await tx
      .select()
      .from(siblingEndpoints)
      .where(eq(siblingEndpoints.service, service))
      .for("update");
    if (!endpoint?.disabledAt) return { kind: "notDisabled" } as const;
    await tx
      .update(siblingEndpoints)
      .set({ failingSince: null, disabledAt: null, disabledReason: null, updatedAt: now })
      .where(eq(siblingEndpoints.service, service));
    await tx
      .update(eventDeliveries)
      .set({ failedAt: now })
      .where(
        and(
          eq(eventDeliveries.service, service),
          isNull(eventDeliveries.deliveredAt),
          isNull(eventDeliveries.failedAt),
          inArray(
            eventDeliveries.eventId,
            tx.select({ id: accountEvents.id }).from(accountEvents).where(lt(accountEvents.recordedAt, from)),
          ),
        ),
      );
    const deliveries = await queueSince(tx, settings[service], service, from, now, { onlyUndelivered: true });
    await audit(
      tx,
      actor,
      "events.endpoint-enable",
      { disabledAt: endpoint.disabledAt.toISOString(), disabledReason: endpoint.disabledReason },
      { disabledAt: null, disabledReason: null, service, from: from.toISOString(), deliveries },
    );
    return { kind: "enabled", deliveries } as const;
  });
}

/**
 * How long the oldest undelivered work has waited, in seconds (0 when none): an event not yet published, since it
 * was recorded, or a delivery still to send (neither delivered nor failed), since it was queued. Read when the
 * metrics are scraped (account_event_oldest_undelivered_seconds); failed deliveries are left out, since nothing
 * will send them until staff do (the staff page lists them).
 */
export async function oldestUndeliveredSeconds(db: Database, now: Date): Promise<number> {
  const [[unpublished], [pending]] = await Promise.all([
    db
      .select({ oldest: min(accountEvents.recordedAt) })
      .from(accountEvents)
      .where(isNull(accountEvents.feedPosition)),
    db
      .select({ oldest: min(eventDeliveries.createdAt) })
      .from(eventDeliveries)
      .where(and(isNull(eventDeliveries.deliveredAt), isNull(eventDeliveries.failedAt))),
  ]);
  const oldest = [unpublished?.oldest, pending?.oldest]
    .filter((value): value is Date => value instanceof Date || typeof value === "string")
    .map((value) => new Date(value).getTime());
  if (oldest.length === 0) return 0;
  return Math.max(0, (now.getTime() - Math.min(...oldest)) / 1000);
}
