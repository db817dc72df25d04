import { randomUUID } from "node:crypto";
import { and, asc, eq, gte, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { accountEvents, eventDeliveries, siblingEndpoints, staffAuditEvents } from "~db/schema";
import { parseConfig } from "~/config.server";
import { type AccountEvent, recordAccountEvents } from "~/domain/events/account-events.server";
import {
  enableEndpointFrom,
  listSiblingEndpoints,
  oldestUndeliveredSeconds,
  redeliverEvent,
  redeliverSince,
} from "~/domain/events/endpoint-admin.server";
import { publishAccountEvents } from "~/domain/events/event-publishing.server";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("endpoint-admin", { ownDatabase: true });

const settings = parseConfig({
  SESSION_SECRETS: "x".repeat(32),
  SERVICE_WEBHOOK_URL_DATA: "https://hooks:s3cret@data.example.test/hooks/account?token=abc",
  SERVICE_WEBHOOK_SECRETS_DATA: `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
  SERVICE_FEED_TOKENS_DATA: "f".repeat(40),
  SERVICE_WEBHOOK_URL_SHOP: "http://localhost:9/shop",
  SERVICE_WEBHOOK_SECRETS_SHOP: `whsec_${Buffer.alloc(32, 9).toString("base64")}`,
  SERVICE_WEBHOOK_EVENTS_SHOP: "member.withdrawn,member.deleted",
  SERVICE_LOGOUT_URI_COMPE: "http://localhost:9/compe/logout",
}).siblingEvents;

const actor = { sub: randomUUID(), email: "staff@example.jp", requestId: "req-endpoint-admin" };

const at = (iso: string) => new Date(iso);

/**
 * Records one member's events, publishes them (queueing their deliveries as the sequencer does, at `queuedAt`) and
 * gives each its recorded time. Returns the events' ids in order.
 */
async function recordPublished(
  events: { event: AccountEvent; recordedAt: Date }[],
  queuedAt: Date,
): Promise<{ sub: string; ids: string[] }> {
  const { db } = database();
  const sub = randomUUID();
  await recordAccountEvents(
    db,
    events.map(({ event, recordedAt }) => ({ ...event, sub, occurredAt: recordedAt })),
  );
  while ((await publishAccountEvents(db, settings, queuedAt)) > 0);
  const rows = await db
    .select({ id: accountEvents.id })
    .from(accountEvents)
    .where(eq(accountEvents.sub, sub))
    .orderBy(asc(accountEvents.memberSequence));
  for (const [index, row] of rows.entries()) {
    await db.update(accountEvents).set({ recordedAt: events[index]!.recordedAt }).where(eq(accountEvents.id, row.id));
  }
  return { sub, ids: rows.map((row) => row.id) };
}

function deliveriesOf(service: string, eventIds: string[]) {
  return database()
    .db.select()
    .from(eventDeliveries)
    .where(and(eq(eventDeliveries.service, service), inArray(eventDeliveries.eventId, eventIds)));
}

/** The deliveries to `service` queued at `now` (each test's own instant), with their events' recorded times. */
async function queuedAtFor(service: string, now: Date) {
  return database()
    .db.select({ eventId: eventDeliveries.eventId, recordedAt: accountEvents.recordedAt })
    .from(eventDeliveries)
    .innerJoin(accountEvents, eq(accountEvents.id, eventDeliveries.eventId))
    .where(and(eq(eventDeliveries.service, service), eq(eventDeliveries.createdAt, now)));
}

/** The published events recorded from `since` on whose type starts with one of `prefixes`, by id. */
async function eventsHeardSince(since: Date, prefixes: string[]) {
  const rows = await database()
    .db.select({ id: accountEvents.id, type: accountEvents.type })
    .from(accountEvents)
    .where(and(gte(accountEvents.recordedAt, since), isNotNull(accountEvents.feedPosition)));
  return rows
    .filter((row) => prefixes.some((prefix) => row.type.startsWith(prefix)))
    .map((row) => row.id)
    .sort();
}

function auditedBy(requestId: string) {
  return database()
    .db.select({ action: staffAuditEvents.action, before: staffAuditEvents.before, after: staffAuditEvents.after })
    .from(staffAuditEvents)
    .where(eq(staffAuditEvents.requestId, requestId));
}

test("redelivering one event resets its delivery, keeps the event's id, and is audited with who, service and what", async () => {
  const { db } = database();
  const queuedAt = at("2026-12-01T00:00:00Z");
  const { ids } = await recordPublished(
    [{ event: { type: "member.withdrawn", data: { withdrawnAt: queuedAt.toISOString() } }, recordedAt: queuedAt }],
    queuedAt,
  );
  const [delivery] = await deliveriesOf("shop", ids);
  await db
    .update(eventDeliveries)
    .set({ attempts: 3, lastStatus: 200, lastAttemptAt: queuedAt, deliveredAt: queuedAt })
    .where(eq(eventDeliveries.id, delivery!.id));

  const now = at("2026-12-03T01:00:00Z");
  const request = { ...actor, requestId: `req-${randomUUID()}` };
  expect(
    await redeliverEvent(
      db,
      settings,
      request,
      { service: "shop", eventId: delivery!.eventId, channel: "webhook" },
      now,
    ),
  ).toEqual({
    kind: "queued",
    eventId: ids[0],
  });
  const [reset] = await deliveriesOf("shop", ids);
  expect(reset).toMatchObject({
    id: delivery!.id,
    eventId: ids[0],
    attempts: 0,
    nextAttemptAt: now,
    deliveredAt: null,
    failedAt: null,
  });
  expect(await auditedBy(request.requestId)).toEqual([
    {
      action: "events.redeliver",
      before: null,
      after: { service: "shop", eventId: ids[0], eventType: "member.withdrawn", channel: "webhook" },
    },
  ]);
});

test("redelivering one event is refused for a service that never had it and while the endpoint is disabled", async () => {
  const { db } = database();
  const queuedAt = at("2026-12-01T00:00:00Z");
  const { ids } = await recordPublished(
    [{ event: { type: "member.deleted", data: {} }, recordedAt: queuedAt }],
    queuedAt,
  );
  const [delivery] = await deliveriesOf("shop", ids);
  await db.update(eventDeliveries).set({ failedAt: queuedAt }).where(eq(eventDeliveries.id, delivery!.id));
  const now = at("2026-12-03T01:00:00Z");

  expect(
    await redeliverEvent(
      db,
      settings,
      actor,
      { service: "online", eventId: delivery!.eventId, channel: "webhook" },
      now,
    ),
  ).toEqual({
    kind: "notFound",
  });
  await db.insert(siblingEndpoints).values({ service: "shop", disabledAt: queuedAt, disabledReason: "gone" });
  try {
    expect(
      await redeliverEvent(
        db,
        settings,
        actor,
        { service: "shop", eventId: delivery!.eventId, channel: "webhook" },
        now,
      ),
    ).toEqual({
      kind: "endpointDisabled",
    });
  } finally {
    await db.delete(siblingEndpoints).where(eq(siblingEndpoints.service, "shop"));
  }
  const [unchanged] = await deliveriesOf("shop", ids);
  expect(unchanged!.failedAt).toEqual(queuedAt);
});

test("redeliver since T sends every event the service hears from T on, delivered or not, and nothing before T", async () => {
  const { db } = database();
  const queuedAt = at("2026-11-20T00:00:00Z");
  const since = at("2026-11-25T03:00:00Z");
  const { ids } = await recordPublished(
    [
      { event: { type: "member.disabled", data: {} }, recordedAt: at("2026-11-25T02:59:59Z") },
      { event: { type: "member.enabled", data: {} }, recordedAt: since },
      {
        event: { type: "member.newsletter_changed", data: { newsletter: true } },
        recordedAt: at("2026-11-26T00:00:00Z"),
      },
      {
        event: { type: "session.revoked", data: { sid: "s-1", reason: "signed-out" } },
        recordedAt: at("2026-11-27T00:00:00Z"),
      },
    ],
    queuedAt,
  );
  const [before, atSince, later, revoked] = ids as [string, string, string, string];
  // The worker's doing: the first three delivered, the revocation failed for good.
  const sent = { attempts: 1, lastStatus: 204, lastAttemptAt: queuedAt, deliveredAt: queuedAt };
  await db
    .update(eventDeliveries)
    .set(sent)
    .where(and(eq(eventDeliveries.service, "data"), inArray(eventDeliveries.eventId, [before, atSince, later])));
  await db
    .update(eventDeliveries)
    .set({ attempts: 8, lastStatus: 500, lastAttemptAt: queuedAt, failedAt: queuedAt })
    .where(and(eq(eventDeliveries.service, "data"), eq(eventDeliveries.eventId, revoked)));
  // A delivery lost from the table (or one the service never had): "since T" queues it anew.
  await db.delete(eventDeliveries).where(and(eq(eventDeliveries.service, "data"), eq(eventDeliveries.eventId, later)));

  const now = at("2026-12-03T01:00:01Z");
  const request = { ...actor, requestId: `req-${randomUUID()}` };
  const outcome = await redeliverSince(db, settings, request, { service: "data", since }, now);
  // Exactly the events from T on, this test's and any other the database holds: their deliveries are the ones queued now.
  const queuedNow = await queuedAtFor("data", now);
  expect(queuedNow.every((row) => row.recordedAt >= since)).toBe(true);
  expect(await eventsHeardSince(since, ["member.", "session."])).toEqual(queuedNow.map((row) => row.eventId).sort());
  expect(outcome).toEqual({ kind: "queued", deliveries: queuedNow.length });
  const rows = await deliveriesOf("data", ids);
  const byEvent = new Map(rows.map((row) => [row.eventId, row]));
  expect(byEvent.get(before)).toMatchObject(sent);
  for (const id of [atSince, later, revoked]) {
    expect(byEvent.get(id)).toMatchObject({ attempts: 0, nextAttemptAt: now, deliveredAt: null, failedAt: null });
  }
  // Compe hears only the logout of a session: its delivery of the revocation is not touched by data's replay.
  const [compe] = await deliveriesOf("compe", ids);
  expect(compe).toMatchObject({ eventId: revoked, channel: "logout", createdAt: queuedAt });
  expect(await auditedBy(request.requestId)).toEqual([
    {
      action: "events.redeliver-since",
      before: null,
      after: { service: "data", since: since.toISOString(), deliveries: queuedNow.length },
    },
  ]);
});

test("redeliver since T sends only the types the service subscribed to, and refuses a time to come", async () => {
  const { db } = database();
  const queuedAt = at("2026-11-20T00:00:00Z");
  const since = at("2026-11-28T00:00:00Z");
  const { ids } = await recordPublished(
    [
      { event: { type: "member.updated", data: { changed: { occupation: "architect" } } }, recordedAt: since },
      { event: { type: "member.deleted", data: {} }, recordedAt: since },
    ],
    queuedAt,
  );
  await db.delete(eventDeliveries).where(inArray(eventDeliveries.eventId, ids));
  const now = at("2026-12-03T01:00:00Z");
  expect(
    await redeliverSince(db, settings, actor, { service: "shop", since: at("2026-12-04T00:00:00Z") }, now),
  ).toEqual({ kind: "timeInFuture" });
  expect(await redeliverSince(db, settings, actor, { service: "online", since }, now)).toEqual({
    kind: "notConfigured",
  });
  await redeliverSince(db, settings, actor, { service: "shop", since }, now);
  expect((await deliveriesOf("shop", ids)).map((row) => row.eventId)).toEqual([ids[1]]);
});

test("enabling an endpoint from T queues the events since T it has not had, and nothing older than T", async () => {
  const { db } = database();
  const queuedAt = at("2026-11-10T00:00:00Z");
  const disabledAt = at("2026-11-12T00:00:00Z");
  const from = at("2026-11-20T00:00:00Z");
  // Before the endpoint was disabled: one delivered, one still being retried when it was disabled.
  const early = await recordPublished(
    [
      { event: { type: "member.withdrawn", data: { withdrawnAt: queuedAt.toISOString() } }, recordedAt: queuedAt },
      { event: { type: "member.deleted", data: {} }, recordedAt: at("2026-11-11T00:00:00Z") },
    ],
    queuedAt,
  );
  await db
    .update(eventDeliveries)
    .set({ attempts: 1, lastStatus: 200, lastAttemptAt: queuedAt, deliveredAt: queuedAt })
    .where(and(eq(eventDeliveries.service, "shop"), eq(eventDeliveries.eventId, early.ids[0]!)));
  await db.insert(siblingEndpoints).values({
    service: "shop",
    failingSince: at("2026-11-07T00:00:00Z"),
    disabledAt,
    disabledReason: "failing",
  });
  // While disabled, the sequencer queued nothing for shop: one event before T, two at and after T.
  const whileDisabled = await recordPublished(
    [
      { event: { type: "member.deleted", data: {} }, recordedAt: at("2026-11-19T23:59:59Z") },
      { event: { type: "member.deleted", data: {} }, recordedAt: from },
      {
        event: { type: "member.withdrawn", data: { withdrawnAt: from.toISOString() } },
        recordedAt: at("2026-11-21T00:00:00Z"),
      },
    ],
    disabledAt,
  );
  expect(await deliveriesOf("shop", whileDisabled.ids)).toEqual([]);

  const now = at("2026-12-03T01:00:02Z");
  const request = { ...actor, requestId: `req-${randomUUID()}` };
  const outcome = await enableEndpointFrom(db, settings, request, { service: "shop", from }, now);
  const queuedNow = await queuedAtFor("shop", now);
  expect(queuedNow.every((row) => row.recordedAt >= from)).toBe(true);
  expect(outcome).toEqual({ kind: "enabled", deliveries: queuedNow.length });
  const [endpoint] = await db.select().from(siblingEndpoints).where(eq(siblingEndpoints.service, "shop"));
  expect(endpoint).toMatchObject({ failingSince: null, disabledAt: null, disabledReason: null });

  const queued = await deliveriesOf("shop", whileDisabled.ids);
  expect(queued.map((row) => row.eventId).sort()).toEqual(whileDisabled.ids.slice(1).sort());
  for (const row of queued)
    expect(row).toMatchObject({ attempts: 0, nextAttemptAt: now, deliveredAt: null, failedAt: null });
  const earlyRows = new Map((await deliveriesOf("shop", early.ids)).map((row) => [row.eventId, row]));
  expect(earlyRows.get(early.ids[0]!)).toMatchObject({ deliveredAt: queuedAt, failedAt: null });
  // Still owed from before the disable, and older than T: marked failed rather than sent after all this time.
  expect(earlyRows.get(early.ids[1]!)).toMatchObject({ deliveredAt: null, failedAt: now });

  expect(await auditedBy(request.requestId)).toEqual([
    {
      action: "events.endpoint-enable",
      before: { disabledAt: disabledAt.toISOString(), disabledReason: "failing" },
      after: {
        disabledAt: null,
        disabledReason: null,
        service: "shop",
        from: from.toISOString(),
        deliveries: queuedNow.length,
      },
    },
  ]);
  expect(await enableEndpointFrom(db, settings, actor, { service: "shop", from }, now)).toEqual({
    kind: "notDisabled",
  });
});

test("the oldest undelivered age counts unpublished events from their recording and pending deliveries from their queueing", async () => {
  const { db } = database();
  const now = at("2026-12-03T01:00:00Z");
  // Whatever the file's other tests left owed is sent (or given up) first: the gauge reads the whole table.
  await db
    .update(eventDeliveries)
    .set({ deliveredAt: now })
    .where(and(isNull(eventDeliveries.deliveredAt), isNull(eventDeliveries.failedAt)));
  expect(await oldestUndeliveredSeconds(db, now)).toBe(0);

  const { ids } = await recordPublished(
    [{ event: { type: "member.deleted", data: {} }, recordedAt: at("2026-11-01T00:00:00Z") }],
    at("2026-12-03T00:59:00Z"),
  );
  // A month-old event queued a minute ago (a replay, say) has waited a minute, not a month.
  expect(await oldestUndeliveredSeconds(db, now)).toBe(60);
  await db.update(eventDeliveries).set({ failedAt: now }).where(inArray(eventDeliveries.eventId, ids));
  expect(await oldestUndeliveredSeconds(db, now)).toBe(0);

  await recordAccountEvents(db, [{ type: "member.deleted", data: {}, sub: randomUUID(), occurredAt: now }]);
  await db.execute(
    sql`update account_events set recorded_at = ${"2026-12-03T00:58:00Z"}::timestamptz where feed_position is null`,
  );
  expect(await oldestUndeliveredSeconds(db, now)).toBe(120);
  while ((await publishAccountEvents(db, settings, now)) > 0);
});

test("the overview says each service's settings without secrets, its state in words' terms and its recent deliveries", async () => {
  const { db } = database();
  await recordPublished(
    [{ event: { type: "member.enabled", data: {} }, recordedAt: at("2026-12-02T00:00:00Z") }],
    at("2026-12-02T00:00:00Z"),
  );
  await db.insert(siblingEndpoints).values({ service: "compe", failingSince: at("2026-12-02T00:00:00Z") });
  try {
    const overview = await listSiblingEndpoints(db, settings, { deliveriesPerService: 50 });
    const byService = new Map(overview.map((endpoint) => [endpoint.service, endpoint]));
    expect(byService.get("data")).toMatchObject({
      webhookUrl: "https://data.example.test/hooks/account",
      eventTypes: null,
      logoutUri: null,
      feedAccess: true,
      state: { kind: "healthy" },
    });
    expect(byService.get("shop")).toMatchObject({
      eventTypes: ["member.withdrawn", "member.deleted"],
      feedAccess: false,
    });
    expect(byService.get("compe")).toMatchObject({
      webhookUrl: null,
      logoutUri: "http://localhost:9/compe/logout",
      state: { kind: "failing", since: at("2026-12-02T00:00:00Z") },
    });
    expect(byService.get("online")).toMatchObject({ state: { kind: "notConfigured" }, deliveries: [] });
    expect(JSON.stringify(overview)).not.toMatch(/s3cret|token=abc|whsec_/);
    const recent = byService.get("data")!.deliveries;
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.length).toBeLessThanOrEqual(50);
    expect(recent[0]).toMatchObject({ eventType: expect.any(String), channel: "webhook" });
  } finally {
    await db.delete(siblingEndpoints).where(eq(siblingEndpoints.service, "compe"));
  }
});
