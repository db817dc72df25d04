import { readFileSync } from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberSessions, securityEvents } from "~db/schema";
import { hashDeviceKey, isKnownBrowser } from "~/domain/security/security-record.server";
import { useTestDatabase } from "../../support/test-database";

// Migration 0026 moves the device keys siblings registered before it into the API's namespace, so that a key planted
// through the API before the release silences no page sign-in after it (docs/security.md, "Known browsers"). Its
// statements are run again here on rows written as the app wrote them before: on a migrated PGlite, or PostgreSQL in CI
// (a database of the file's own: the migration touches whole tables).
const database = useTestDatabase("api-device-keys-migration", { ownDatabase: true });

const MIGRATION = path.resolve("db/migrations/0026_api-device-keys-namespace.sql");

async function runMigration() {
  const statements = readFileSync(MIGRATION, "utf8").split("--> statement-breakpoint");
  await database().db.transaction(async (tx) => {
    for (const statement of statements) await tx.execute(sql.raw(statement));
  });
}

/** A session and its sign-in event as the app wrote them before the migration. */
async function sessionAsBefore(input: {
  sub: string;
  deviceKey: string;
  passwordVerifiedAt: Date | null;
  newBrowser: boolean | null;
}) {
  const { db } = database();
  const now = new Date();
  const [session] = await db
    .insert(memberSessions)
    .values({
      sub: input.sub,
      email: "migration@example.jp",
      deviceKey: input.deviceKey,
      deviceName: "Windows 10",
      browser: "Firefox 128",
      refreshTokenEncrypted: `encrypted-${crypto.randomUUID()}`,
      activatedAt: now,
      passwordVerifiedAt: input.passwordVerifiedAt,
    })
    .returning({ id: memberSessions.id });
  await db.insert(securityEvents).values({
    sub: input.sub,
    kind: "sign-in",
    occurredAt: now,
    sessionId: session!.id,
    deviceKeyHash: hashDeviceKey(input.deviceKey),
    newBrowser: input.newBrowser,
  });
  return session!.id;
}

async function rowsOf(sessionId: string) {
  const { db } = database();
  const [session] = await db.select().from(memberSessions).where(eq(memberSessions.id, sessionId));
  const [event] = await db.select().from(securityEvents).where(eq(securityEvents.sessionId, sessionId));
  return { deviceKey: session!.deviceKey, deviceKeyHash: event!.deviceKeyHash, kind: event!.kind };
}

test("a key a sibling registered before the release moves into the API's namespace and no longer makes its browser known; the pages' keys and older sessions stay", async () => {
  const sub = crypto.randomUUID();
  const page = await sessionAsBefore({ sub, deviceKey: "page-key", passwordVerifiedAt: new Date(), newBrowser: false });
  const planted = await sessionAsBefore({ sub, deviceKey: "planted-key", passwordVerifiedAt: null, newBrowser: true });
  // Before migration 0015 wrote sign-ins as they happened (its carried-over events have no new_browser): unknown.
  const older = await sessionAsBefore({ sub, deviceKey: "older-key", passwordVerifiedAt: null, newBrowser: null });
  expect(await isKnownBrowser(database().db, sub, hashDeviceKey("planted-key"))).toBe(true);

  await runMigration();

  expect(await rowsOf(planted)).toEqual({
    deviceKey: "api:planted-key",
    deviceKeyHash: hashDeviceKey("api:planted-key"),
    kind: "sign-in",
  });
  expect(await isKnownBrowser(database().db, sub, hashDeviceKey("planted-key"))).toBe(false);
  expect(await rowsOf(page)).toEqual({
    deviceKey: "page-key",
    deviceKeyHash: hashDeviceKey("page-key"),
    kind: "sign-in",
  });
  expect(await isKnownBrowser(database().db, sub, hashDeviceKey("page-key"))).toBe(true);
  expect((await rowsOf(older)).deviceKey).toBe("older-key");

  // Run twice (a retried deployment): nothing moves again. And the record is append-only again afterwards.
  await runMigration();
  expect((await rowsOf(planted)).deviceKey).toBe("api:planted-key");
  await expect(
    database().db.update(securityEvents).set({ deviceKeyHash: null }).where(eq(securityEvents.sub, sub)),
  ).rejects.toThrow();
});
