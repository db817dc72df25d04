import { EventEmitter } from "node:events";
import { and, asc, eq, inArray, isNotNull, isNull, lte, notInArray, or, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import type { Database } from "~db/client.server";
import { accountEventFeedHead, accountEvents, eventDeliveries, siblingEndpoints } from "~db/schema";
import type { SiblingService } from "~/config.server";
import { logger } from "~/integrations/logger.server";
import { countAccountEventDelivery } from "~/integrations/metrics.server";
import type { SiblingPost, SiblingPostOutcome, SiblingSender } from "~/integrations/webhook-sender.server";
import type { Clock } from "~/services.server";
import { type StoredAccountEvent, accountEventBodyOf } from "./account-events.server";
import { PUBLISH_BATCH_SIZE, type SiblingEventsSettings, publishAccountEvents } from "./event-publishing.server";
import type { LogoutTokenSigner } from "./logout-tokens.server";

/**
 * The retry schedule: after a failed attempt, the next comes this long after it (each delay ±20 %, so that the
 * retries of many deliveries that failed together do not arrive together): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 14 h, 20 h, 24 h. With the first attempt at once that is 10 attempts over about 75 hours (at least 60 with the
 * jitter); after the last the delivery is failed (`failed_at`) and only staff redeliver it.
 */
export const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];
export const DELIVERY_MAX_ATTEMPTS = DELIVERY_RETRY_DELAYS_MS.length + 1;
/** Each retry delay is drawn from ±this fraction around its value. */
export const DELIVERY_RETRY_JITTER = 0.2;
/** A service whose deliveries have failed without a success for this long is disabled (reason "failing"). */
export const ENDPOINT_FAILING_DISABLE_MS = 5 * 24 * 3_600_000;
/**
 * How often a worker looks for work: events committed on other instances and retries come due. The member's click
 * to the sibling's answer stays within seconds; an idle poll is one indexed query (hasDeliveryWork).
 */
export const DELIVERY_POLL_INTERVAL_MS = 1_000;
/** Sends in progress at once per worker. */
export const DELIVERY_CONCURRENCY = 8;
/**
 * Sends in progress at once to one service: half the worker's, so that a service whose endpoint hangs until the
 * timeout holds half the sends at most, and the other services' events (logout tokens among them) still go out.
 */
export const DELIVERY_CONCURRENCY_PER_SERVICE = DELIVERY_CONCURRENCY / 2;
/**
 * How long a worker holds a row it claimed: three times one send at most (the sender gives up after 15 s), so no other
 * worker sends it meanwhile; a crashed worker's rows are free again after it, and sent again with the same ids, soon
 * enough that a logout token a crash held back still reaches its sibling within a minute.
 */
export const DELIVERY_LEASE_MS = 45_000;

export interface EventDeliveryDependencies {
  db: Database;
  /** The services' clock: when deliveries are due and what the schedule counts from. */
  clock: Clock;
  settings: SiblingEventsSettings;
  /** Null without LOGOUT_TOKEN_SIGNING_KEYS: then no service has a logout URI (logoutSigningKeyProblems). */
  signer: LogoutTokenSigner | null;
  sender: SiblingSender;
  /** A number in [0, 1) for the retry jitter. */
  random?: () => number;
}

interface ClaimedDelivery {
  id: string;
  service: string;
  channel: string;
  attempts: number;
  event: StoredAccountEvent;
}

/** The delay before the attempt after `attempts` failed ones, with its jitter; null when the schedule has run out. */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number | null {
  const base = DELIVERY_RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 + DELIVERY_RETRY_JITTER * (2 * random() - 1)));
}

const dueDeliveries = (now: Date) =>
  and(
    isNull(eventDeliveries.deliveredAt),
    isNull(eventDeliveries.failedAt),
    lte(eventDeliveries.nextAttemptAt, now),
    or(isNull(eventDeliveries.leasedUntil), lte(eventDeliveries.leasedUntil, now)),
  );

/**
 * Whether there is anything to do: committed events without a feed position, or deliveries due and not held by a
 * worker. The idle poll of every instance, so one statement of two index look-ups (account_events_unpublished_idx,
 * event_deliveries_due_idx) on the feed head's single row.
 */
async function hasDeliveryWork(db: Database, now: Date): Promise<boolean> {
  const [row] = await db
    .select({
      work: sql<boolean>`exists (select 1 from ${accountEvents} where ${isNull(accountEvents.feedPosition)})
        or exists (select 1 from ${eventDeliveries} where ${dueDeliveries(now)})`,
    })
    .from(accountEventFeedHead)
    .where(eq(accountEventFeedHead.id, 1));
  return row?.work === true;
}

/**
 * Takes up to `limit` of the oldest due deliveries for this worker, with their events, skipping the services in
 * `skipServices`: their lease starts and their attempt is counted in one statement. `for update skip locked` lets
 * concurrent workers pass over rows another is claiming, and the lease keeps them off while they are sent, so in
 * normal operation each delivery is sent once. A worker claims only what it starts sending at once, so it never
 * holds a row it is not sending.
 */
async function claimDueDeliveries(
  db: Database,
  now: Date,
  limit: number,
  skipServices: string[],
): Promise<ClaimedDelivery[]> {
  const due = db
    .select({ id: eventDeliveries.id })
    .from(eventDeliveries)
    .where(
      skipServices.length > 0
        ? and(dueDeliveries(now), notInArray(eventDeliveries.service, skipServices))
        : dueDeliveries(now),
    )
    .orderBy(asc(eventDeliveries.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const rows = await db
    .update(eventDeliveries)
    .set({ leasedUntil: new Date(now.getTime() + DELIVERY_LEASE_MS), attempts: sql`${eventDeliveries.attempts} + 1` })
    .from(accountEvents)
    .where(and(inArray(eventDeliveries.id, due), eq(accountEvents.id, eventDeliveries.eventId)))
    .returning({
      id: eventDeliveries.id,
      service: eventDeliveries.service,
      channel: eventDeliveries.channel,
      attempts: eventDeliveries.attempts,
      eventId: accountEvents.id,
      type: accountEvents.type,
      sub: accountEvents.sub,
      memberSequence: accountEvents.memberSequence,
      occurredAt: accountEvents.occurredAt,
      data: accountEvents.data,
    });
  return rows.map(({ eventId, type, sub, memberSequence, occurredAt, data, ...delivery }) => ({
    ...delivery,
    event: { id: eventId, type, sub, memberSequence, occurredAt, data },
  }));
}

/**
 * The Standard Webhooks POST: `webhook-id` the event's id on every attempt (receivers de-duplicate on it), one `v1`
 * signature per configured secret (two while one is rotated), made by the reference library.
 */
function webhookPost(
  event: ClaimedDelivery["event"],
  webhook: { url: string; secrets: string[] },
  sentAt: Date,
): SiblingPost {
  const body = JSON.stringify(accountEventBodyOf(event));
  return {
    url: webhook.url,
    body,
    headers: {
      "content-type": "application/json",
      "webhook-id": event.id,
      "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
      "webhook-signature": webhook.secrets.map((secret) => new Webhook(secret).sign(event.id, sentAt, body)).join(" "),
    },
  };
}

/** The back-channel logout POST: the form field `logout_token`, its `jti` the delivery's id on every attempt. */
async function logoutPost(
  delivery: ClaimedDelivery,
  logoutUri: string,
  signer: LogoutTokenSigner,
  sentAt: Date,
): Promise<SiblingPost> {
  const token = await signer.sign({
    audience: delivery.service,
    sub: delivery.event.sub,
    sid: String(delivery.event.data.sid),
    jti: delivery.id,
    issuedAt: sentAt,
  });
  return {
    url: logoutUri,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ logout_token: token }).toString(),
  };
}

type DeliveryOutcome = SiblingPostOutcome | { kind: "unconfigured"; error: string };

/**
 * Sends one claimed delivery. The signature's timestamp and the token's `iat` are the real time of the attempt,
 * whatever the services' clock says: the receiver checks them against its own clock.
 */
async function sendDelivery(deps: EventDeliveryDependencies, delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
  const settings = deps.settings[delivery.service as SiblingService];
  const sentAt = new Date();
  if (delivery.channel === "webhook") {
    if (!settings?.webhook) return { kind: "unconfigured", error: "the service has no webhook URL any more" };
    return deps.sender.post(webhookPost(delivery.event, settings.webhook, sentAt));
  }
  if (!settings?.logoutUri || !deps.signer) {
    return { kind: "unconfigured", error: "the service has no back-channel logout URI any more" };
  }
  try {
    return await deps.sender.post(await logoutPost(delivery, settings.logoutUri, deps.signer, sentAt));
  } catch (error) {
    return { kind: "unreachable", error: `the logout token could not be signed: ${String(error)}` };
  }
}

/**
 * Disables a service's deliveries: its endpoint answered 410 (`gone`) or has failed for ENDPOINT_FAILING_DISABLE_MS
 * (`failing`). Its pending deliveries are failed with it, and no new ones are queued (publishAccountEvents skips
 * disabled services) until staff enable it again.
 */
async function disableEndpoint(tx: Database, service: string, reason: "gone" | "failing", now: Date) {
  await tx
    .insert(siblingEndpoints)
    .values({ service, disabledAt: now, disabledReason: reason, updatedAt: now })
    .onConflictDoUpdate({
      target: siblingEndpoints.service,
      set: { disabledAt: now, disabledReason: reason, updatedAt: now },
    });
  const failed = await tx
    .update(eventDeliveries)
    .set({ failedAt: now, leasedUntil: null, lastError: `endpoint disabled: ${reason}` })
    .from(accountEvents)
    .where(
      and(
        eq(eventDeliveries.service, service),
        isNull(eventDeliveries.deliveredAt),
        isNull(eventDeliveries.failedAt),
        eq(accountEvents.id, eventDeliveries.eventId),
      ),
    )
    .returning({ channel: eventDeliveries.channel, type: accountEvents.type });
  for (const { channel, type } of failed) countAccountEventDelivery({ service, channel, type }, "failed");
  logger.warn({ service, reason, failedDeliveries: failed.length }, "a sibling service's deliveries are disabled");
}

/** Notes a failed attempt on the service's endpoint; returns since when it has been failing. */
async function markEndpointFailing(db: Database, service: string, now: Date): Promise<Date> {
  const [row] = await db
    .insert(siblingEndpoints)
    .values({ service, failingSince: now, updatedAt: now })
    .onConflictDoUpdate({
      target: siblingEndpoints.service,
      set: { failingSince: sql`coalesce(${siblingEndpoints.failingSince}, excluded.failing_since)`, updatedAt: now },
    })
    .returning({ failingSince: siblingEndpoints.failingSince });
  return row?.failingSince ?? now;
}

/** Records what came of an attempt: delivered, due again on the schedule, or failed (with its endpoint, on a 410). */
async function recordOutcome(
  deps: EventDeliveryDependencies,
  delivery: ClaimedDelivery,
  outcome: DeliveryOutcome,
): Promise<void> {
  const { db } = deps;
  const now = deps.clock.now();
  const labels = { service: delivery.service, channel: delivery.channel, type: delivery.event.type };
  const status = outcome.kind === "answered" ? outcome.status : null;
  const attempt = {
    leasedUntil: null,
    lastAttemptAt: now,
    lastStatus: status,
    lastError: outcome.kind === "answered" ? (status! >= 300 ? `HTTP ${status}` : null) : outcome.error,
  };
  const thisDelivery = eq(eventDeliveries.id, delivery.id);

  if (status !== null && status >= 200 && status < 300) {
    // Delivered, and the service is no longer failing: one statement, the cost of every delivery.
    const delivered = db
      .update(eventDeliveries)
      .set({ ...attempt, deliveredAt: now, failedAt: null })
      .where(thisDelivery)
      .returning({ service: eventDeliveries.service });
    const recovered = db
      .update(siblingEndpoints)
      .set({ failingSince: null, updatedAt: now })
      .where(
        and(
          eq(siblingEndpoints.service, sql`(select service from ${sql.identifier("delivered")})`),
          isNotNull(siblingEndpoints.failingSince),
        ),
      );
    await db.execute(sql`with ${sql.identifier("delivered")} as (${delivered.getSQL()}) ${recovered.getSQL()}`);
    countAccountEventDelivery(labels, "delivered");
    return;
  }
  if (status === 410) {
    await db.transaction(async (tx) => {
      await tx.update(eventDeliveries).set(attempt).where(thisDelivery);
      await disableEndpoint(tx, delivery.service, "gone", now);
    });
    return;
  }
  const delay = outcome.kind === "unconfigured" ? null : retryDelayMs(delivery.attempts, deps.random);
  await db
    .update(eventDeliveries)
    .set(
      delay === null ? { ...attempt, failedAt: now } : { ...attempt, nextAttemptAt: new Date(now.getTime() + delay) },
    )
    .where(thisDelivery);
  countAccountEventDelivery(labels, delay === null ? "failed" : "retry");
  const fields = { deliveryId: delivery.id, ...labels, attempts: delivery.attempts, error: attempt.lastError };
  if (delay === null) logger.warn(fields, "an account event delivery is given up");
  else logger.info(fields, "an account event delivery failed; it is tried again later");
  if (outcome.kind === "unconfigured") return;

  const failingSince = await markEndpointFailing(db, delivery.service, now);
  if (now.getTime() - failingSince.getTime() >= ENDPOINT_FAILING_DISABLE_MS) {
    await db.transaction((tx) => disableEndpoint(tx, delivery.service, "failing", now));
  }
}

/**
 * Keeps up to DELIVERY_CONCURRENCY sends in progress (DELIVERY_CONCURRENCY_PER_SERVICE to one service). A `fill`
 * (a poll, a ring) looks for work (one query when there is none), numbers committed events and queues their
 * deliveries (the sequencer, on whichever instance gets there first), then claims and starts due deliveries until its
 * sends are full or nothing is due; a finished send claims the next. One fill at a time; a fill asked for during one
 * runs after it.
 */
function createDeliveryDispatcher(deps: EventDeliveryDependencies) {
  const sends = new Set<Promise<void>>();
  const sendingTo = new Map<string, number>();
  let filling: Promise<void> | null = null;
  let fillAgain: { publish: boolean } | null = null;
  let stopping = false;
  let settled = 0;

  const send = (delivery: ClaimedDelivery) => {
    sendingTo.set(delivery.service, (sendingTo.get(delivery.service) ?? 0) + 1);
    const sending: Promise<void> = sendDelivery(deps, delivery)
      .then((outcome) => recordOutcome(deps, delivery, outcome))
      .then(
        () => void (settled += 1),
        (error: unknown) =>
          logger.warn({ err: error, deliveryId: delivery.id }, "a delivery's outcome could not be recorded"),
      )
      .finally(() => {
        sends.delete(sending);
        sendingTo.set(delivery.service, sendingTo.get(delivery.service)! - 1);
        fill({ publish: false });
      });
    sends.add(sending);
  };

  // The services skipped by a claim that found nothing due, since the last poll: none can become due before the next
  // poll publishes or a retry's time comes, so a finished send does not ask again.
  let nothingDueBesides: string | null = null;

  const fillSends = async (publish: boolean) => {
    if (publish) {
      nothingDueBesides = null;
      // Even with every send busy: events are numbered for the feed and queued whatever the pushes are doing.
      if (!(await hasDeliveryWork(deps.db, deps.clock.now()))) return;
      while ((await publishAccountEvents(deps.db, deps.settings, deps.clock.now())) === PUBLISH_BATCH_SIZE);
    }
    while (!stopping) {
      const counts = [...sendingTo];
      const busy = counts.filter(([, count]) => count >= DELIVERY_CONCURRENCY_PER_SERVICE).map(([service]) => service);
      const mostToOne = Math.max(
        0,
        ...counts.map(([, count]) => count).filter((count) => count < DELIVERY_CONCURRENCY_PER_SERVICE),
      );
      // As many as keep every service within its share, whichever services the rows turn out to be for.
      const limit = Math.min(DELIVERY_CONCURRENCY - sends.size, DELIVERY_CONCURRENCY_PER_SERVICE - mostToOne);
      const skipped = busy.sort().join(",");
      if (limit <= 0 || nothingDueBesides === skipped) return;
      const deliveries = await claimDueDeliveries(deps.db, deps.clock.now(), limit, busy);
      deliveries.forEach(send);
      if (deliveries.length < limit) {
        nothingDueBesides = skipped;
        return;
      }
    }
  };

  function fill(options = { publish: true }): void {
    if (stopping) return;
    if (filling) {
      fillAgain = { publish: options.publish || (fillAgain?.publish ?? false) };
      return;
    }
    filling = fillSends(options.publish)
      .catch((error: unknown) =>
        logger.warn({ err: error }, "account events could not be delivered; tried again shortly"),
      )
      .finally(() => {
        filling = null;
        const next = fillAgain;
        fillAgain = null;
        if (next) fill(next);
      });
  }

  /** Resolves once no fill and no send is in progress. */
  async function idle(): Promise<void> {
    while (filling || sends.size > 0) await Promise.all([filling, ...sends]);
  }

  return {
    fill,
    idle,
    settled: () => settled,
    /** Claims nothing more and waits for the sends in progress (each within the sender's timeout). */
    async stop() {
      stopping = true;
      await idle();
    },
  };
}

/**
 * Sends every delivery that is due now (numbering committed events first) until none is left, and returns how many
 * it settled (delivered, retried later or failed). The worker does the same continuously; tests call this with a
 * clock of their own.
 */
export async function deliverDueEvents(deps: EventDeliveryDependencies): Promise<number> {
  const dispatcher = createDeliveryDispatcher(deps);
  dispatcher.fill();
  await dispatcher.idle();
  return dispatcher.settled();
}

/** This process's doorbell for the delivery worker, on globalThis for the reason given in mail-outbox.server.ts. */
const DOORBELL_KEY = Symbol.for("member-account.event-delivery-doorbell");

function doorbell(): EventEmitter {
  const holder = globalThis as unknown as Record<symbol, EventEmitter | undefined>;
  return (holder[DOORBELL_KEY] ??= new EventEmitter());
}

/**
 * Wakes this process's delivery worker: a transaction that recorded events has just committed. Other instances find
 * them within DELIVERY_POLL_INTERVAL_MS.
 */
export function ringEventDelivery(): void {
  doorbell().emit("ring");
}

/**
 * The delivery worker of a server process: fills its sends when rung, every DELIVERY_POLL_INTERVAL_MS, and as each
 * send finishes. `stop` (SIGTERM) claims nothing more and waits for the sends in progress (each within the sender's
 * timeout). It holds no row it is not sending, so another instance takes the rest at its next poll.
 */
export function startEventDeliveryWorker(
  deps: EventDeliveryDependencies,
  options: { pollIntervalMs?: number } = {},
): { stop(): Promise<void> } {
  const dispatcher = createDeliveryDispatcher(deps);
  const poll = () => dispatcher.fill();
  doorbell().on("ring", poll);
  const interval = setInterval(poll, options.pollIntervalMs ?? DELIVERY_POLL_INTERVAL_MS);
  interval.unref();
  poll();
  return {
    async stop() {
      doorbell().off("ring", poll);
      clearInterval(interval);
      await dispatcher.stop();
    },
  };
}
