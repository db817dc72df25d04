import { randomUUID } from "node:crypto";
import { asc, eq, inArray } from "drizzle-orm";
import { expect, test } from "vitest";
import { accountEvents, eventDeliveries, siblingEndpoints } from "~db/schema";
import { parseConfig } from "~/config.server";
import { recordAccountEvent, recordAccountEvents } from "~/domain/events/account-events.server";
import { publishAccountEvents } from "~/domain/events/event-publishing.server";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("account-events", { ownDatabase: true });
const now = new Date("2026-12-03T10:00:00Z");

const settings = parseConfig({
  SESSION_SECRETS: "x".repeat(32),
  SERVICE_WEBHOOK_URL_DATA: "http://localhost:9/data",
  SERVICE_WEBHOOK_SECRETS_DATA: `whsec_${Buffer.alloc(24, 7).toString("base64")}`,
  SERVICE_WEBHOOK_URL_SHOP: "http://localhost:9/shop",
  SERVICE_WEBHOOK_SECRETS_SHOP: `whsec_${Buffer.alloc(32, 9).toString("base64")}`,
  SERVICE_WEBHOOK_EVENTS_SHOP: "member.withdrawn,member.deleted",
  SERVICE_LOGOUT_URI_COMPE: "http://localhost:9/compe/logout",
}).siblingEvents;

async function publishAll() {
  const { db } = database();
  while ((await publishAccountEvents(db, settings, now)) > 0);
}

test("an event commits with its change and rolls back with it; each member's events are numbered 1, 2, 3", async () => {
  const { db } = database();
  const [alice, bob] = [randomUUID(), randomUUID()];
  await recordAccountEvent(db, { sub: alice, occurredAt: now, type: "member.disabled", data: {} });
  await expect(
    db.transaction(async (tx) => {
      await recordAccountEvent(tx, { sub: alice, occurredAt: now, type: "member.enabled", data: {} });
      throw new Error("the change failed");
    }),
  ).rejects.toThrow("the change failed");
  await recordAccountEvents(db, [
    { sub: bob, occurredAt: now, type: "member.newsletter_changed", data: { newsletter: true } },
    { sub: alice, occurredAt: now, type: "member.email_changed", data: { email: "new@example.jp" } },
  ]);
  const rows = await db
    .select({ sub: accountEvents.sub, type: accountEvents.type, sequence: accountEvents.memberSequence })
    .from(accountEvents)
    .where(inArray(accountEvents.sub, [alice, bob]))
    .orderBy(asc(accountEvents.memberSequence));
  expect(rows.filter((row) => row.sub === alice)).toEqual([
    { sub: alice, type: "member.disabled", sequence: 1 },
    { sub: alice, type: "member.email_changed", sequence: 2 },
  ]);
  expect(rows.filter((row) => row.sub === bob)).toEqual([{ sub: bob, type: "member.newsletter_changed", sequence: 1 }]);
});

test("publishing numbers committed events in order without gaps and queues each subscribed service's deliveries", async () => {
  const { db } = database();
  await publishAll();
  const sub = randomUUID();
  await recordAccountEvents(db, [
    { sub, occurredAt: now, type: "member.updated", data: { changed: { occupation: "architect" } } },
    { sub, occurredAt: now, type: "session.revoked", data: { sid: "jti-1", reason: "signed-out" } },
    { sub, occurredAt: now, type: "member.withdrawn", data: { withdrawnAt: now.toISOString() } },
  ]);
  await publishAll();
  const events = await db
    .select({ id: accountEvents.id, type: accountEvents.type, position: accountEvents.feedPosition })
    .from(accountEvents)
    .where(eq(accountEvents.sub, sub))
    .orderBy(asc(accountEvents.feedPosition));
  expect(events.map((event) => event.type)).toEqual(["member.updated", "session.revoked", "member.withdrawn"]);
  const positions = events.map((event) => event.position!);
  expect(positions).toEqual([positions[0], positions[0]! + 1, positions[0]! + 2]);

  const deliveries = await db
    .select({ eventId: eventDeliveries.eventId, service: eventDeliveries.service, channel: eventDeliveries.channel })
    .from(eventDeliveries)
    .where(
      inArray(
        eventDeliveries.eventId,
        events.map((event) => event.id),
      ),
    );
  const byEvent = (index: number) =>
    deliveries
      .filter((delivery) => delivery.eventId === events[index]!.id)
      .map((delivery) => `${delivery.service}/${delivery.channel}`)
      .sort();
  // data wants every type; shop only the end of membership; compe only the logout of a session.
  expect(byEvent(0)).toEqual(["data/webhook"]);
  expect(byEvent(1)).toEqual(["compe/logout", "data/webhook"]);
  expect(byEvent(2)).toEqual(["data/webhook", "shop/webhook"]);
});

test("a disabled service gets no deliveries queued while it stays disabled", async () => {
  const { db } = database();
  await publishAll();
  await db.insert(siblingEndpoints).values({ service: "data", disabledAt: now, disabledReason: "gone" });
  const sub = randomUUID();
  await recordAccountEvent(db, { sub, occurredAt: now, type: "member.deleted", data: {} });
  await publishAll();
  const [event] = await db.select({ id: accountEvents.id }).from(accountEvents).where(eq(accountEvents.sub, sub));
  const deliveries = await db
    .select({ service: eventDeliveries.service })
    .from(eventDeliveries)
    .where(eq(eventDeliveries.eventId, event!.id));
  expect(deliveries).toEqual([{ service: "shop" }]);
  await db.delete(siblingEndpoints).where(eq(siblingEndpoints.service, "data"));
});
