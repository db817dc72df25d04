import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { eq, sql } from "drizzle-orm";
import { beforeAll, expect, test } from "vitest";
import { csvCopyFor } from "~db/client.server";
import { memberProfiles } from "~db/schema";
import { EmailAddressesExportParams } from "~/domain/staff/export-params.server";
import { type CsvDownload, exportEmailAddresses } from "~/domain/staff/member-export.server";
import {
  memberOfUnsubscribeToken,
  receivesNewsletter,
  unsubscribeFromNewsletter,
} from "~/domain/newsletter/newsletter.server";
import { insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("newsletter-unsubscribe", { ownDatabase: true });
const services = () => ({ db: database().db, csvCopy: csvCopyFor(database().db) });

const CURRENT_SECRET = "newsletter-test-current-secret-0123456789";
const RETIRED_SECRET = "newsletter-test-retired-secret-0123456789";
const ORIGIN = "https://id.example.jp";
const linksSignedBy = (secret: string) => ({
  linkBase: (locale: string) => `${ORIGIN}${locale === "en" ? "/en" : ""}/newsletter/unsubscribe/`,
  sessionSecrets: [secret],
});

/** Members 0-3 have a profile, 4 never filled one, 5 cancelled; 0 and 4 prefer English. */
const subs = Array.from({ length: 6 }, () => randomUUID());
const emailOf = (index: number) => `reader${index}@example.jp`;

beforeAll(async () => {
  await insertDirectoryMembers(
    database().db,
    subs.map((sub, index) => ({
      sub,
      email: emailOf(index),
      locale: index === 0 || index === 4 ? "en" : "ja",
      withProfile: index !== 4,
      cancelledAt: index === 5 ? new Date("2026-02-01T00:00:00Z") : null,
      signedUpMicros: microsOf(new Date(Date.UTC(2026, 0, 1, 0, index))),
    })),
  );
});

async function textOf(download: CsvDownload): Promise<string> {
  return Buffer.from(await new Response(download.body).arrayBuffer()).toString("utf8");
}

/** The list in a language as rows of its header's columns, signed with `secret`. */
async function newsletterList(locale: "ja" | "en", secret = CURRENT_SECRET) {
  const download = await exportEmailAddresses(
    services(),
    {
      actor: { sub: randomUUID(), email: "staff@example.jp" },
      requestId: "req-newsletter",
      query: EmailAddressesExportParams.parse({ locale }),
    },
    linksSignedBy(secret),
  );
  const [header, ...rows] = parse(await textOf(download), { bom: true }) as string[][];
  return rows.map((row) => Object.fromEntries(header!.map((name, column) => [name, row[column]!])));
}

const tokenOf = (url: string) => /\/unsubscribe\/([^/]+)\/$/.exec(url)?.[1] ?? "";

test("each address comes with its member's unsubscribe URL, in the list's language, signed for that member alone", async () => {
  const english = await newsletterList("en");
  expect(english.map((row) => row.email)).toEqual([emailOf(0), emailOf(4)]);
  expect(Object.keys(english[0]!)).toEqual(["email", "family_name", "given_name", "unsubscribe_url"]);
  for (const [row, index] of [
    [english[0]!, 0],
    [english[1]!, 4],
  ] as const) {
    expect(row.unsubscribe_url).toMatch(
      new RegExp(`^${ORIGIN}/en/newsletter/unsubscribe/${subs[index]}\\.[0-9a-f]{64}/$`),
    );
    expect(memberOfUnsubscribeToken(tokenOf(row.unsubscribe_url!), [CURRENT_SECRET])).toBe(subs[index]);
  }
  const japanese = await newsletterList("ja");
  expect(japanese.map((row) => row.email)).toEqual([emailOf(1), emailOf(2), emailOf(3)]);
  expect(japanese[0]!.unsubscribe_url!.startsWith(`${ORIGIN}/newsletter/unsubscribe/${subs[1]}.`)).toBe(true);
});

test("the signing key is set for the COPY alone: afterwards the connection holds none", async () => {
  await newsletterList("ja");
  const result = await database().db.execute(
    sql`select coalesce(current_setting('member_account.newsletter_unsubscribe_key', true), '') as key`,
  );
  const rows =
    "rows" in (result as object)
      ? (result as unknown as { rows: unknown[] }).rows
      : [...(result as unknown as unknown[])];
  expect(rows).toEqual([{ key: "" }]);
});

test("a tampered, cut or foreign token names nobody; one signed by a secret still configured (rotation) works", async () => {
  const [row] = await newsletterList("ja");
  const token = tokenOf(row!.unsubscribe_url!);
  const [sub, signature] = token.split(".") as [string, string];
  expect(memberOfUnsubscribeToken(token, [CURRENT_SECRET])).toBe(sub);
  // Another member's sub under this signature, a flipped signature digit, a cut token, an unknown secret.
  expect(memberOfUnsubscribeToken(`${subs[2]}.${signature}`, [CURRENT_SECRET])).toBeNull();
  const flipped = `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`;
  expect(memberOfUnsubscribeToken(`${sub}.${flipped}`, [CURRENT_SECRET])).toBeNull();
  expect(memberOfUnsubscribeToken(token.slice(0, -2), [CURRENT_SECRET])).toBeNull();
  expect(memberOfUnsubscribeToken(sub, [CURRENT_SECRET])).toBeNull();
  expect(memberOfUnsubscribeToken(token, ["some-other-secret-of-32-characters-or-more"])).toBeNull();
  // A list sent before the secrets rotated: its links work while the old secret is still among them.
  const [old] = await newsletterList("ja", RETIRED_SECRET);
  const oldToken = tokenOf(old!.unsubscribe_url!);
  expect(old!.email).toBe(emailOf(1));
  expect(memberOfUnsubscribeToken(oldToken, [CURRENT_SECRET, RETIRED_SECRET])).toBe(subs[1]);
  expect(memberOfUnsubscribeToken(oldToken, [CURRENT_SECRET])).toBeNull();
});

test("unsubscribing leaves the member out of the next list, and again changes nothing", async () => {
  expect(await receivesNewsletter(database().db, subs[3]!)).toBe(true);
  await unsubscribeFromNewsletter(database().db, subs[3]!);
  expect(await receivesNewsletter(database().db, subs[3]!)).toBe(false);
  expect((await newsletterList("ja")).map((row) => row.email)).toEqual([emailOf(1), emailOf(2)]);
  await unsubscribeFromNewsletter(database().db, subs[3]!);
  expect((await newsletterList("ja")).map((row) => row.email)).toEqual([emailOf(1), emailOf(2)]);
});

test("a member without a profile gets a row that records the choice; a cancelled member's link makes none", async () => {
  await unsubscribeFromNewsletter(database().db, subs[4]!);
  expect((await newsletterList("en")).map((row) => row.email)).toEqual([emailOf(0)]);
  const [made] = await database()
    .db.select({
      receivesNewsletter: memberProfiles.receivesNewsletter,
      preferredLanguage: memberProfiles.preferredLanguage,
      familyName: memberProfiles.familyName,
    })
    .from(memberProfiles)
    .where(eq(memberProfiles.sub, subs[4]!));
  // The language the list had them in (Cognito's locale), not the column's default: sign-in follows it.
  expect(made).toEqual({ receivesNewsletter: false, preferredLanguage: "en", familyName: null });
  // A link used after the member's data was purged (no profile, no directory row) brings nothing back.
  const purged = randomUUID();
  await unsubscribeFromNewsletter(database().db, purged);
  expect(await database().db.select().from(memberProfiles).where(eq(memberProfiles.sub, purged))).toEqual([]);
});
