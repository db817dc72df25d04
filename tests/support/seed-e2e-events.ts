/**
 * Run by the e2e server's command before the server starts (playwright.config.ts), on its fresh data directory: the
 * account events the deliveries page shows (tests/e2e/admin-events.spec.ts). One `member.deleted` of a member nobody
 * else's journey touches, published (and so queued) with the server's own sibling settings, and Compe's endpoint
 * disabled by a 410 before it, so Compe got none of it. No journey records `member.deleted` (the purge does, after 13
 * months), so Online's list holds this delivery alone whatever the other specs do.
 */
import { randomUUID } from "node:crypto";
import { openDatabase } from "~db/client.server";
import { siblingEndpoints } from "~db/schema";
import { parseConfig } from "~/config.server";
import { recordAccountEvent } from "~/domain/events/account-events.server";
import { publishAccountEvents } from "~/domain/events/event-publishing.server";

/** When Compe's endpoint answered 410 (10:00 in Japan), as the spec reads it on the page. */
const COMPE_DISABLED_AT = new Date("2026-12-01T01:00:00Z");

const siblingEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("SERVICE_")));
const { siblingEvents } = parseConfig({ SESSION_SECRETS: "x".repeat(32), ...siblingEnv });

const handle = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? ".data" });
try {
  await handle.migrate();
  const now = new Date();
  await handle.db
    .insert(siblingEndpoints)
    .values({
      service: "compe",
      failingSince: COMPE_DISABLED_AT,
      disabledAt: COMPE_DISABLED_AT,
      disabledReason: "gone",
    })
    .onConflictDoNothing();
  await recordAccountEvent(handle.db, { type: "member.deleted", sub: randomUUID(), occurredAt: now, data: {} });
  while ((await publishAccountEvents(handle.db, siblingEvents, now)) > 0);
} finally {
  await handle.close();
}
