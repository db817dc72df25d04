import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { type SQL, and, eq, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "~db/client.server";
import { memberDirectory, memberProfiles } from "~db/schema";
import { DEFAULT_LOCALE, isLocale } from "~/i18n/locales";
import { recordAccountEvent } from "../events/account-events.server";

/**
 * The newsletter is the member's choice (Japan's Specified Electronic Mail Act wants a working opt-out): on by
 * default, turned off and on in the profile, or off with the personal link the staff's e-mail-address export gives
 * each address. The link names the member by sub and carries an HMAC of it, so it needs no sign-in and no stored
 * token: `<sub>.<hex HMAC-SHA-256 of the sub>`. PostgreSQL signs it in the export's COPY query (pgcrypto's hmac(),
 * the key in a setting, never in the query's text: db/client.server.ts); Node verifies it here.
 */

/** The custom setting the export's query reads the signing key from, for the time of its COPY. */
const SIGNING_KEY_SETTING = "member_account.newsletter_unsubscribe_key";

const UNSUBSCRIBE_TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([0-9a-f]{64})$/;

/**
 * The signing key of one session secret, as hex: hmac() in PostgreSQL takes the key as text, and both sides use
 * these same characters as the key's bytes. A key of its own, so a link says nothing about the other secrets' keys.
 */
function signingKeyOf(secret: string): string {
  return Buffer.from(hkdfSync("sha256", secret, "member-account", "newsletter-unsubscribe", 32)).toString("hex");
}

/**
 * The settings the export's COPY needs (CsvCopy's secretSettings): the first secret signs, as it does cookies.
 */
export function unsubscribeSigningSettings(secrets: string[]): Record<string, string> {
  const [current] = secrets;
  if (!current) throw new Error("No session secret configured");
  return { [SIGNING_KEY_SETTING]: signingKeyOf(current) };
}

/**
 * A member's unsubscribe URL as SQL, for the export's query: `linkBase` (the page's URL without its token, in the
 * list's language) followed by the token and the page's closing slash.
 */
export function unsubscribeUrlSql(sub: AnyPgColumn, linkBase: string): SQL<string> {
  const signature = sql`encode(hmac(${sub}::text, current_setting(${SIGNING_KEY_SETTING}), 'sha256'), 'hex')`;
  return sql<string>`${linkBase}::text || ${sub}::text || '.' || ${signature} || '/'`;
}

/**
 * The member an unsubscribe token names, or null when it is malformed or no configured secret signed it (tampered,
 * or signed under a secret since retired: every secret is tried, so links outlive a rotation until the old secret is
 * dropped).
 */
export function memberOfUnsubscribeToken(token: string, secrets: string[]): string | null {
  const match = UNSUBSCRIBE_TOKEN.exec(token);
  if (!match) return null;
  const [, sub, signature] = match as unknown as [string, string, string];
  const given = Buffer.from(signature, "hex");
  const signedBy = (secret: string) =>
    timingSafeEqual(given, createHmac("sha256", signingKeyOf(secret)).update(sub).digest());
  return secrets.some(signedBy) ? sub : null;
}

/** Whether the member receives the newsletter: a member who never saved a profile does. */
export async function receivesNewsletter(db: Database, sub: string): Promise<boolean> {
  const [row] = await db
    .select({ receivesNewsletter: memberProfiles.receivesNewsletter })
    .from(memberProfiles)
    .where(eq(memberProfiles.sub, sub))
    .limit(1);
  return row?.receivesNewsletter ?? true;
}

/**
 * The unsubscribe link's verb: the member receives no newsletter from the next export on. Idempotent: only the post
 * that changes the choice records `member.newsletter_changed`, in its transaction. A member who never filled the
 * profile has no row yet: one is made (as cancellation makes one), but only for a member the directory holds and who
 * has not cancelled, so a link used after the purge brings no data back. Its preferred language is the directory's
 * copy of Cognito's `locale` (the list's language for them), since a stored profile's language is the one a sign-in
 * switches the pages to.
 */
export async function unsubscribeFromNewsletter(db: Database, sub: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [stored] = await tx
      .select({ receivesNewsletter: memberProfiles.receivesNewsletter })
      .from(memberProfiles)
      .where(eq(memberProfiles.sub, sub))
      .for("update");
    if (stored && !stored.receivesNewsletter) return;
    if (stored) {
      await tx.update(memberProfiles).set({ receivesNewsletter: false }).where(eq(memberProfiles.sub, sub));
    } else {
      const [member] = await tx
        .select({ locale: memberDirectory.locale })
        .from(memberDirectory)
        .where(and(eq(memberDirectory.sub, sub), isNull(memberDirectory.cancelledAt)));
      if (!member) return;
      await tx
        .insert(memberProfiles)
        .values({
          sub,
          preferredLanguage: isLocale(member.locale) ? member.locale : DEFAULT_LOCALE,
          receivesNewsletter: false,
        })
        .onConflictDoUpdate({ target: memberProfiles.sub, set: { receivesNewsletter: false } });
    }
    await recordAccountEvent(tx, {
      type: "member.newsletter_changed",
      sub,
      occurredAt: new Date(),
      data: { newsletter: false },
    });
  });
}
