import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Database } from "../../../db/client.server";
import { knownBrowsers, mailOutbox } from "../../../db/schema";
import type { Locale } from "~/i18n/locales";
import type { DeviceDescription } from "../sessions/device-description.server";
import { mailLocaleFor } from "../mail/mail-outbox.server";

/** Browsers are known by the SHA-256 of their device key. */
export function hashDeviceKey(deviceKey: string): string {
  return createHash("sha256").update(deviceKey, "utf8").digest("hex");
}

export interface BrowserSignInFacts {
  sub: string;
  email: string;
  sessionId: string;
  deviceKey: string;
  device: DeviceDescription;
  ip: string;
  requestLocale: Locale;
  now: Date;
}

/**
 * Notes a sign-in's browser as known to the member and, when it is new to them, queues the alert mail, in one
 * statement inside the sign-in's transaction (the member's lock is held, so two sign-ins cannot both be "first").
 * No alert for the member's first sign-in, nor for the browser that did the sign-up: a browser is "new" only when it
 * is not listed and another browser of the member has signed in before. Writes only for a browser not yet listed,
 * and once for the sign-up browser's first sign-in; a known browser's sign-in reads and writes nothing more.
 * Returns whether an alert was queued (the caller rings the outbox once the transaction commits).
 *
 * Both parts read the table as it was before the statement (one snapshot for every part of a WITH), which is what
 * "known before this sign-in" means.
 */
export async function recordBrowserSignIn(tx: Database, facts: BrowserSignInFacts): Promise<boolean> {
  const deviceKeyHash = hashDeviceKey(facts.deviceKey);
  const now = facts.now.toISOString();
  const remembered = tx.$with("remembered", { sub: sql<string>`sub` }).as(sql`
    insert into ${knownBrowsers} (sub, device_key_hash, first_seen_at, first_signed_in_at)
    values (${facts.sub}, ${deviceKeyHash}, ${now}::timestamptz, ${now}::timestamptz)
    on conflict (sub, device_key_hash) do update set first_signed_in_at = excluded.first_signed_in_at
      where ${knownBrowsers.firstSignedInAt} is null
    returning sub`);
  const details = sql`jsonb_build_object(
    'sub', ${facts.sub}::text, 'sessionId', ${facts.sessionId}::text, 'signedInAt', ${now}::text,
    'device', ${facts.device.deviceName}::text, 'browser', ${facts.device.browser}::text, 'ip', ${facts.ip}::text)`;
  const queued = tx.$with("queued", { id: sql<string>`id` }).as(sql`
    insert into ${mailOutbox} (kind, recipient, locale, details, created_at, next_attempt_at)
    select 'signInAlert', ${facts.email}, ${mailLocaleFor(facts.sub, facts.requestLocale)}, ${details},
      ${now}::timestamptz, ${now}::timestamptz
    where not exists (
        select 1 from ${knownBrowsers} where sub = ${facts.sub} and device_key_hash = ${deviceKeyHash})
      and exists (select 1 from ${knownBrowsers} where sub = ${facts.sub} and first_signed_in_at is not null)
    returning id`);
  const [row] = await tx
    .with(remembered, queued)
    .select({ alerts: sql<number>`(select count(*) from queued)::int` })
    .from(sql`(values (1)) as one`);
  return (row?.alerts ?? 0) > 0;
}

/**
 * The browser that did a sign-up is known from then on (its later sign-in mails nobody), though it has not signed in
 * yet. Safe to repeat.
 */
export async function rememberSignUpBrowser(
  db: Database,
  input: { sub: string; deviceKey: string; now: Date },
): Promise<void> {
  await db
    .insert(knownBrowsers)
    .values({ sub: input.sub, deviceKeyHash: hashDeviceKey(input.deviceKey), firstSeenAt: input.now })
    .onConflictDoNothing();
}
