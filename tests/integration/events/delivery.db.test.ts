import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq, isNull } from "drizzle-orm";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { accountEvents, eventDeliveries, siblingEndpoints } from "~db/schema";
import { parseConfig } from "~/config.server";
import {
  ACCOUNT_EVENT_TYPES,
  type AccountEvent,
  type AccountEventType,
  recordAccountEvents,
} from "~/domain/events/account-events.server";
import {
  DELIVERY_CONCURRENCY_PER_SERVICE,
  DELIVERY_MAX_ATTEMPTS,
  DELIVERY_RETRY_DELAYS_MS,
  DELIVERY_RETRY_JITTER,
  ENDPOINT_FAILING_DISABLE_MS,
  type EventDeliveryDependencies,
  deliverDueEvents,
  startEventDeliveryWorker,
} from "~/domain/events/event-delivery.server";
import { createLogoutTokenSigner, logoutTokenJwks } from "~/domain/events/logout-tokens.server";
import { metricsExposition } from "~/integrations/metrics.server";
import { type SiblingSender, createSiblingSender } from "~/integrations/webhook-sender.server";
import { type EventReceiverProcess, startEventReceiver } from "../../support/event-receiver-process";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("event-delivery", { ownDatabase: true });

const ISSUER = "http://localhost:5173";
const SECRETS = {
  data: [`whsec_${Buffer.alloc(32, 1).toString("base64")}`, `whsec_${Buffer.alloc(24, 2).toString("base64")}`],
  compe: [`whsec_${Buffer.alloc(32, 3).toString("base64")}`],
  online: [`whsec_${Buffer.alloc(32, 4).toString("base64")}`],
};

/** Two signing keys, the first signs: LOGOUT_TOKEN_SIGNING_KEYS as production holds it. */
async function signingKeys(): Promise<string> {
  const keys = [];
  for (const kid of ["2026-12", "2026-06"]) {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    keys.push({ ...(await exportJWK(privateKey)), kid, alg: "ES256" });
  }
  return JSON.stringify(keys);
}

let rawKeys: string;
let jwksServer: ReturnType<typeof createServer>;
let receiver: EventReceiverProcess;
let sender: SiblingSender;

/** The published keys, as /.well-known/jwks.json serves them (its HTTP answer is delivery-jwks.test.ts's). */
async function startJwksServer(): Promise<string> {
  jwksServer = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(logoutTokenJwks(rawKeys)));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
}

let jwksUrl: string;
beforeAll(async () => {
  rawKeys = await signingKeys();
  jwksUrl = await startJwksServer();
  receiver = await startEventReceiver({ issuer: ISSUER, jwksUrl, secrets: SECRETS });
  sender = createSiblingSender({ refuseInternalAddresses: false });
});

afterAll(async () => {
  sender.close();
  await receiver.stop();
  await new Promise((resolve) => jwksServer.close(resolve));
});

beforeEach(async () => {
  // Each test's events and deliveries alone: the worker takes every due row of the database.
  const { db } = database();
  await db.delete(accountEvents);
  await db.delete(siblingEndpoints);
});

/**
 * The siblings' settings on `receiverAt`: data hears every type and has a logout URI, compe only session.revoked,
 * online every type; shop nothing.
 */
function settingsFor(receiverAt: EventReceiverProcess) {
  return parseConfig({
    SESSION_SECRETS: "x".repeat(32),
    SERVICE_WEBHOOK_URL_DATA: receiverAt.urlOf("data", "webhook"),
    SERVICE_WEBHOOK_SECRETS_DATA: SECRETS.data.join(","),
    SERVICE_LOGOUT_URI_DATA: receiverAt.urlOf("data", "logout"),
    SERVICE_WEBHOOK_URL_COMPE: receiverAt.urlOf("compe", "webhook"),
    SERVICE_WEBHOOK_SECRETS_COMPE: SECRETS.compe.join(","),
    SERVICE_WEBHOOK_EVENTS_COMPE: "session.revoked",
    SERVICE_WEBHOOK_URL_ONLINE: receiverAt.urlOf("online", "webhook"),
    SERVICE_WEBHOOK_SECRETS_ONLINE: SECRETS.online.join(","),
    LOGOUT_TOKEN_SIGNING_KEYS: rawKeys,
  }).siblingEvents;
}

/** The services' clock, moved by the tests. */
function testClock(start = new Date("2026-12-03T10:00:00Z")) {
  let now = start;
  return {
    now: () => now,
    set(to: Date) {
      now = to;
    },
  };
}

async function dependencies(clock: { now(): Date }, receiverAt = receiver): Promise<EventDeliveryDependencies> {
  return {
    db: database().db,
    clock,
    settings: settingsFor(receiverAt),
    signer: await createLogoutTokenSigner(rawKeys, ISSUER),
    sender,
  };
}

const DATA_OF: { [Type in AccountEventType]: Extract<AccountEvent, { type: Type }>["data"] } = {
  "member.created": { email: "new@example.jp", via: "sign-up" },
  "member.updated": { changed: { occupation: "architect" } },
  "member.email_changed": { email: "changed@example.jp" },
  "member.password_changed": { via: "change" },
  "member.two_step_changed": { authenticatorApp: true },
  "member.passkeys_changed": { change: "added", passkeys: 1 },
  "member.newsletter_changed": { newsletter: false },
  "member.disabled": {},
  "member.enabled": {},
  "member.withdrawn": { withdrawnAt: "2026-12-03T10:00:00.000Z" },
  "member.deleted": {},
  "session.created": { sid: "origin-jti-1", device: "PC", browser: "Firefox" },
  "session.revoked": { sid: "origin-jti-1", reason: "signed-out" },
};

async function recordEvents(sub: string, types: readonly AccountEventType[], occurredAt: Date) {
  await recordAccountEvents(
    database().db,
    types.map(
      (type) => ({ sub, occurredAt, type, data: DATA_OF[type] }) as Parameters<typeof recordAccountEvents>[1][0],
    ),
  );
}

async function deliveriesOf(service?: string) {
  const { db } = database();
  return db
    .select()
    .from(eventDeliveries)
    .where(service ? eq(eventDeliveries.service, service) : undefined);
}

test("every event reaches each subscribed service signed with each of its secrets, and a retry keeps its webhook-id", async () => {
  const before = (await receiver.received()).length;
  const clock = testClock();
  const deps = await dependencies(clock);
  const sub = randomUUID();
  await receiver.answer("data", "webhook", [500]);
  await recordEvents(sub, ACCOUNT_EVENT_TYPES, clock.now());

  await deliverDueEvents(deps);
  const retried = (await deliveriesOf()).filter((row) => row.deliveredAt === null);
  expect(retried).toHaveLength(1);
  expect(retried[0]).toMatchObject({ service: "data", channel: "webhook", attempts: 1, lastStatus: 500 });
  clock.set(new Date(clock.now().getTime() + DELIVERY_RETRY_DELAYS_MS[0]! * (1 + DELIVERY_RETRY_JITTER) + 1));
  await deliverDueEvents(deps);

  const rows = await deliveriesOf();
  expect(rows.every((row) => row.deliveredAt !== null)).toBe(true);
  const got = (await receiver.received()).slice(before);
  expect(got.filter((delivery) => !delivery.verified)).toEqual([]);

  const events = await database()
    .db.select({ id: accountEvents.id, type: accountEvents.type, sequence: accountEvents.memberSequence })
    .from(accountEvents)
    .where(eq(accountEvents.sub, sub));
  const webhooksTo = (service: string) =>
    got.filter((entry) => entry.service === service && entry.channel === "webhook");
  // data and online hear every type, once each, but for the retried one, twice with the same id and body.
  for (const service of ["data", "online"]) {
    const ids = webhooksTo(service).map((entry) => entry.webhookId);
    expect(new Set(ids), service).toEqual(new Set(events.map((event) => event.id)));
  }
  const dataWebhooks = webhooksTo("data");
  expect(dataWebhooks).toHaveLength(events.length + 1);
  const twice = dataWebhooks.filter((entry) => entry.webhookId === retried[0]!.eventId);
  expect(twice.map((entry) => entry.answered)).toEqual([500, 200]);
  expect(twice[1]!.body).toEqual(twice[0]!.body);
  expect(webhooksTo("online")).toHaveLength(events.length);
  expect(dataWebhooks.every((entry) => entry.signatures === 2)).toBe(true);
  // The body is the agreed shape.
  const revoked = events.find((event) => event.type === "session.revoked")!;
  expect(dataWebhooks.find((entry) => entry.webhookId === revoked.id)!.body).toEqual({
    id: revoked.id,
    type: "session.revoked",
    timestamp: "2026-12-03T10:00:00.000Z",
    sub,
    sequence: revoked.sequence,
    data: { sid: "origin-jti-1", reason: "signed-out" },
  });
  // compe asked for session.revoked alone.
  expect(webhooksTo("compe").map((entry) => entry.webhookId)).toEqual([revoked.id]);

  // The back-channel logout token: one, to data, naming the session; its jti is the delivery's id.
  const logouts = got.filter((entry) => entry.channel === "logout");
  const logoutRow = rows.find((row) => row.channel === "logout")!;
  expect(logouts).toHaveLength(1);
  expect(logouts[0]!.header).toEqual({ alg: "ES256", typ: "logout+jwt", kid: "2026-12" });
  expect(logouts[0]!.claims).toMatchObject({
    iss: ISSUER,
    aud: "data",
    sub,
    sid: "origin-jti-1",
    jti: logoutRow.id,
    events: { "http://schemas.openid.net/event/backchannel-logout": {} },
  });
  const { iat, exp } = logouts[0]!.claims as { iat: number; exp: number };
  expect(exp - iat).toBe(120);

  // The operators see each outcome by service, channel and type.
  const { body: metrics } = await metricsExposition();
  for (const [labels, outcome] of [
    ['service="data",channel="webhook",type="session.revoked"', "delivered"],
    ['service="data",channel="logout",type="session.revoked"', "delivered"],
    [`service="data",channel="webhook",type="${twice[0]!.body!.type as string}"`, "retry"],
  ]) {
    expect(metrics).toMatch(
      new RegExp(`^account_event_deliveries_total\\{${labels},outcome="${outcome}"\\} [1-9]`, "m"),
    );
  }
});

test("a receiver down for a while gets everything once it is back, each retry on the schedule", async () => {
  const clock = testClock(new Date("2026-12-10T00:00:00Z"));
  const down = await startEventReceiver({ issuer: ISSUER, jwksUrl, secrets: SECRETS });
  const deps = await dependencies(clock, down);
  await down.stop();
  const subs = [randomUUID(), randomUUID()];
  for (const sub of subs) await recordEvents(sub, ["member.updated", "member.email_changed"], clock.now());

  const failedAttempts = 5;
  for (let attempt = 1; attempt <= failedAttempts; attempt++) {
    await deliverDueEvents(deps);
    const rows = await deliveriesOf();
    expect(rows.length).toBe(4 * 2); // data and online, two events of two members
    for (const row of rows) {
      expect(row, `attempt ${attempt}`).toMatchObject({ attempts: attempt, deliveredAt: null, failedAt: null });
      expect(row.lastError).toMatch(/ECONNREFUSED/);
      const delay = row.nextAttemptAt.getTime() - row.lastAttemptAt!.getTime();
      const scheduled = DELIVERY_RETRY_DELAYS_MS[attempt - 1]!;
      expect(delay).toBeGreaterThanOrEqual(scheduled * (1 - DELIVERY_RETRY_JITTER));
      expect(delay).toBeLessThanOrEqual(scheduled * (1 + DELIVERY_RETRY_JITTER));
    }
    // Not due before its time: a pass just before the earliest retry sends nothing.
    const earliest = Math.min(...rows.map((row) => row.nextAttemptAt.getTime()));
    clock.set(new Date(earliest - 1));
    expect(await deliverDueEvents(deps)).toBe(0);
    clock.set(new Date(Math.max(...rows.map((row) => row.nextAttemptAt.getTime()))));
  }
  const [endpoint] = await database().db.select().from(siblingEndpoints).where(eq(siblingEndpoints.service, "data"));
  expect(endpoint!.failingSince).toEqual(new Date("2026-12-10T00:00:00Z"));

  const back = await startEventReceiver({ issuer: ISSUER, jwksUrl, secrets: SECRETS, port: down.port });
  try {
    await deliverDueEvents(deps);
    const rows = await deliveriesOf();
    expect(rows.every((row) => row.deliveredAt !== null && row.attempts === failedAttempts + 1)).toBe(true);
    const got = await back.received();
    expect(got.every((entry) => entry.verified)).toBe(true);
    expect(got.map((entry) => `${entry.service} ${entry.webhookId}`).sort()).toEqual(
      rows.map((row) => `${row.service} ${row.eventId}`).sort(),
    );
    const endpoints = await database().db.select().from(siblingEndpoints);
    expect(endpoints.every((row) => row.failingSince === null && row.disabledAt === null)).toBe(true);
  } finally {
    await back.stop();
  }
});

test("a delivery is failed after its last scheduled attempt; five days of failures disable the service", async () => {
  const clock = testClock(new Date("2026-12-20T00:00:00Z"));
  const down = await startEventReceiver({ issuer: ISSUER, jwksUrl, secrets: SECRETS });
  const deps = await dependencies(clock, down);
  await down.stop();
  await recordEvents(randomUUID(), ["member.updated"], clock.now());
  for (let attempt = 1; attempt <= DELIVERY_MAX_ATTEMPTS; attempt++) {
    await deliverDueEvents(deps);
    const rows = await deliveriesOf();
    if (attempt < DELIVERY_MAX_ATTEMPTS) {
      expect(rows.every((row) => row.failedAt === null)).toBe(true);
      clock.set(new Date(Math.max(...rows.map((row) => row.nextAttemptAt.getTime()))));
    } else {
      expect(rows.map((row) => [row.attempts, row.failedAt])).toEqual(rows.map(() => [attempt, clock.now()]));
    }
  }
  // The schedule spans under five days: the services are failing, not yet disabled.
  const endpoints = await database().db.select().from(siblingEndpoints);
  expect(endpoints.map((row) => row.disabledAt)).toEqual([null, null]);

  // Failing for five days when the next attempt fails: disabled, with its pending deliveries.
  await database()
    .db.update(siblingEndpoints)
    .set({ failingSince: new Date(clock.now().getTime() - ENDPOINT_FAILING_DISABLE_MS) })
    .where(eq(siblingEndpoints.service, "data"));
  await recordEvents(randomUUID(), ["member.updated", "member.enabled"], clock.now());
  await deliverDueEvents(deps);
  const [data] = await database().db.select().from(siblingEndpoints).where(eq(siblingEndpoints.service, "data"));
  expect(data).toMatchObject({ disabledReason: "failing", disabledAt: clock.now() });
  expect(
    await database()
      .db.select()
      .from(eventDeliveries)
      .where(and(eq(eventDeliveries.service, "data"), isNull(eventDeliveries.failedAt))),
  ).toEqual([]);
  // online has failed for less than five days: still tried.
  const online = await deliveriesOf("online");
  expect(online.filter((row) => row.failedAt === null)).toHaveLength(2);
});

test("a 410 disables the service's endpoint, fails its pending deliveries and queues no more", async () => {
  const before = (await receiver.received()).length;
  const clock = testClock(new Date("2026-12-24T00:00:00Z"));
  const deps = await dependencies(clock);
  await receiver.answer("data", "webhook", [410]);
  await receiver.answer("data", "logout", [503]);
  const sub = randomUUID();
  await recordEvents(sub, ["session.revoked"], clock.now());
  await deliverDueEvents(deps);

  const [endpoint] = await database().db.select().from(siblingEndpoints).where(eq(siblingEndpoints.service, "data"));
  expect(endpoint).toMatchObject({ disabledAt: clock.now(), disabledReason: "gone" });
  const data = await deliveriesOf("data");
  expect(data.map((row) => row.channel).sort()).toEqual(["logout", "webhook"]);
  expect(data.every((row) => row.failedAt !== null && row.deliveredAt === null)).toBe(true);
  expect(data.find((row) => row.channel === "webhook")!.lastStatus).toBe(410);

  // Later events: nothing for data, the others as before.
  clock.set(new Date(clock.now().getTime() + 24 * 3_600_000));
  await recordEvents(sub, ["member.updated"], clock.now());
  await deliverDueEvents(deps);
  expect(await deliveriesOf("data")).toHaveLength(2);
  const got = (await receiver.received()).slice(before);
  expect(got.filter((entry) => entry.service === "data").map((entry) => entry.answered)).toEqual(
    expect.arrayContaining([410]),
  );
  expect(got.filter((entry) => entry.service === "data" && entry.answered !== 503)).toHaveLength(1);
  expect(got.filter((entry) => entry.service === "online").map((entry) => entry.body?.type)).toEqual([
    "session.revoked",
    "member.updated",
  ]);
});

test("two workers on one database send each delivery once", async () => {
  const before = (await receiver.received()).length;
  const clock = { now: () => new Date() };
  const deps = await dependencies(clock);
  const subs = Array.from({ length: 10 }, () => randomUUID());
  for (const sub of subs) await recordEvents(sub, ["member.updated", "member.newsletter_changed"], clock.now());
  const workers = [
    startEventDeliveryWorker(deps, { pollIntervalMs: 20 }),
    startEventDeliveryWorker(deps, { pollIntervalMs: 20 }),
  ];
  try {
    // data and online hear both types.
    await expect
      .poll(async () => (await deliveriesOf()).filter((row) => row.deliveredAt !== null).length)
      .toBe(subs.length * 2 * 2);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
  const rows = await deliveriesOf();
  expect(rows).toHaveLength(subs.length * 2 * 2);
  expect(rows.filter((row) => row.attempts !== 1)).toEqual([]);
  const got = (await receiver.received()).slice(before);
  const sent = got.map((entry) => `${entry.service} ${entry.webhookId}`);
  expect(sent.sort()).toEqual(rows.map((row) => `${row.service} ${row.eventId}`).sort());
});

test("a stopping worker finishes its sends in progress and holds no other row: another sends the rest at once", async () => {
  const clock = { now: () => new Date() };
  const deps = await dependencies(clock);
  await receiver.answer("online", "webhook", [], 1_000);
  try {
    const sub = randomUUID();
    await recordEvents(sub, Array(6).fill("member.updated") as AccountEventType[], clock.now());
    const first = startEventDeliveryWorker(deps, { pollIntervalMs: 20 });
    // Stopped while its first sends to the slow receiver are in progress.
    await expect
      .poll(async () => (await deliveriesOf()).filter((row) => row.leasedUntil !== null).length)
      .toBeGreaterThan(0);
    await first.stop();
    // What it had claimed it sent; the rest it left unclaimed, attempts uncounted.
    const afterStop = await deliveriesOf();
    expect(afterStop.filter((row) => row.leasedUntil !== null)).toEqual([]);
    const pending = afterStop.filter((row) => row.deliveredAt === null);
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((row) => row.attempts === 0)).toBe(true);
    expect(afterStop.filter((row) => row.deliveredAt !== null).every((row) => row.attempts === 1)).toBe(true);

    // Another worker takes them without waiting for a lease to run out.
    const second = startEventDeliveryWorker(deps, { pollIntervalMs: 20 });
    try {
      await expect.poll(async () => (await deliveriesOf()).filter((row) => row.deliveredAt === null).length).toBe(0);
    } finally {
      await second.stop();
    }
    const rows = await deliveriesOf();
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
  } finally {
    await receiver.answer("online", "webhook", [], 0);
  }
});

test("a service whose endpoint hangs holds half the sends at most: the others' deliveries go out meanwhile", async () => {
  const clock = { now: () => new Date() };
  const deps = await dependencies(clock);
  await receiver.answer("data", "webhook", [], 2_000);
  const worker = startEventDeliveryWorker(deps, { pollIntervalMs: 20 });
  try {
    const sub = randomUUID();
    const events = 3 * DELIVERY_CONCURRENCY_PER_SERVICE;
    await recordEvents(sub, Array(events).fill("member.updated") as AccountEventType[], clock.now());
    await expect.poll(async () => (await deliveriesOf("online")).filter((row) => row.deliveredAt).length).toBe(events);
    // data's take at least three rounds of its receiver's two seconds: most are still to come.
    const data = await deliveriesOf("data");
    expect(data.filter((row) => row.deliveredAt === null).length).toBeGreaterThanOrEqual(
      events - DELIVERY_CONCURRENCY_PER_SERVICE,
    );
  } finally {
    await worker.stop();
    await receiver.answer("data", "webhook", [], 0);
  }
});

test("a pass sends what is due once; the next finds nothing to do", async () => {
  const clock = testClock(new Date("2026-12-30T00:00:00Z"));
  const deps = await dependencies(clock);
  await recordEvents(randomUUID(), ["member.updated"], clock.now());
  expect(await deliverDueEvents(deps)).toBe(2);
  expect(await deliverDueEvents(deps)).toBe(0);
  expect((await deliveriesOf()).map((row) => [row.service, row.attempts]).sort()).toEqual([
    ["data", 1],
    ["online", 1],
  ]);
});
