import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import iconv from "iconv-lite";
import { beforeAll, expect, test } from "vitest";
import { csvCopyFor } from "~db/client.server";
import { staffAuditEvents, withdrawalReasons } from "~db/schema";
import {
  EmailAddressesExportParams,
  MemberExportParams,
  WithdrawalReasonsExportParams,
} from "~/domain/staff/export-params.server";
import {
  type CsvDownload,
  MAX_CONCURRENT_EXPORTS,
  exportEmailAddresses,
  exportMembers,
  exportWithdrawalReasons,
} from "~/domain/staff/member-export.server";
import { translatorFor } from "~/i18n/translator.server";
import { insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("member-export", { ownDatabase: true });
const services = () => ({ db: database().db, csvCopy: csvCopyFor(database().db) });
const ACTOR = { sub: randomUUID(), email: "staff@example.jp" };
const UNSUBSCRIBE_LINKS = {
  linkBase: (locale: string) => `https://id.example.jp${locale === "en" ? "/en" : ""}/newsletter/unsubscribe/`,
  sessionSecrets: ["member-export-test-secret-0123456789abcdef"],
};

const MEMBER_COUNT = 25;
const FIRST = new Date("2026-01-01T00:00:00Z");
const subs: string[] = [];

beforeAll(async () => {
  const members = Array.from({ length: MEMBER_COUNT }, (_, index) => {
    const sub = randomUUID();
    subs.push(sub);
    return {
      sub,
      email: `member${String(index).padStart(2, "0")}@example.jp`,
      // Cells an attacker could type into a profile: they must come out escaped.
      familyName: index === 0 ? "=cmd|' /C calc'!A0" : index === 1 ? "＝cmd" : "山田",
      givenName: index === 2 ? "〜花子" : "太郎",
      locale: index % 5 === 0 ? "en" : index % 5 === 1 ? null : "ja",
      enabled: index !== 3,
      cognitoStatus: index === 4 ? "UNCONFIRMED" : "CONFIRMED",
      cancelledAt: index === 6 ? new Date("2026-02-01T00:00:00Z") : null,
      signedUpMicros: microsOf(new Date(FIRST.getTime() + index * 60_000)),
    };
  });
  await insertDirectoryMembers(database().db, members);
  await database()
    .db.insert(withdrawalReasons)
    .values([
      { sub: randomUUID(), reason: "price", locale: "ja", createdAt: new Date("2026-03-01T00:00:00Z") },
      {
        sub: randomUUID(),
        reason: "other",
        detail: "@SUM(1+1)*cmd",
        locale: "en",
        createdAt: new Date("2026-03-02T00:00:00Z"),
      },
    ]);
});

async function textOf(download: CsvDownload): Promise<string> {
  const bytes = Buffer.from(await new Response(download.body).arrayBuffer());
  return download.encoding === "shift_jis" ? iconv.decode(bytes, "cp932") : bytes.toString("utf8");
}

/** db.execute's rows: PGlite answers { rows }, postgres.js the rows themselves. */
const rowsOf = (result: unknown) =>
  "rows" in (result as object) ? (result as { rows: unknown[] }).rows : [...(result as unknown[])];
const labelsIn = (locale: "ja" | "en") => (reason: string) => translatorFor(locale)(`withdrawal:reasons.${reason}`);
const recordsOf = (text: string) => parse(text, { bom: true, relax_column_count: true }) as string[][];
const request = <Q>(query: Q) => ({ actor: ACTOR, requestId: "req-test", query });

test("users.csv: BOM, header, Japan times, formula cells escaped, Japanese intact", async () => {
  const text = await textOf(await exportMembers(services(), request(MemberExportParams.parse({}))));
  expect(text.startsWith("\uFEFFsub,email,")).toBe(true);
  const [header, ...rows] = recordsOf(text);
  expect(header).toEqual([
    "sub",
    "email",
    "email_verified",
    "status",
    "enabled",
    "family_name",
    "given_name",
    "locale",
    "referrer",
    "signed_up_at",
    "legacy_migrated_at",
    "cancelled_at",
  ]);
  expect(rows).toHaveLength(MEMBER_COUNT);
  expect(rows.map((row) => row[0])).toEqual(subs);
  expect(rows[0]![5]).toBe("'=cmd|' /C calc'!A0");
  expect(rows[1]![5]).toBe("'＝cmd");
  expect(rows[2]![6]).toBe("〜花子");
  expect(rows[0]![9]).toBe("2026-01-01 09:00:00");
  expect(rows[3]![3]).toBe("disabled");
  expect(rows[6]![11]).toBe("2026-02-01 09:00:00");
});

test("users.csv: page and limit select rows page*limit.. exactly; header=0 leaves the header out; all ignores them", async () => {
  const page = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ page: "2", limit: "7", header: "0" }))),
  );
  expect(recordsOf(page).map((row) => row[0])).toEqual(subs.slice(14, 21));
  const last = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ page: "3", limit: "7" }))),
  );
  expect(
    recordsOf(last)
      .slice(1)
      .map((row) => row[0]),
  ).toEqual(subs.slice(21, 25));
  const all = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ all: "1", page: "9", limit: "1" }))),
  );
  expect(recordsOf(all)).toHaveLength(MEMBER_COUNT + 1);
  // Past the last row without a header, COPY writes nothing (PGlite then gives no file at all): the BOM alone.
  const beyond = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ page: "99", limit: "7", header: "0" }))),
  );
  expect(beyond).toBe("\uFEFF");
});

test("users.csv: the admin list's filters apply", async () => {
  const text = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ status: "disabled", header: "false" }))),
  );
  expect(recordsOf(text).map((row) => row[0])).toEqual([subs[3]]);
  const search = await textOf(await exportMembers(services(), request(MemberExportParams.parse({ q: "member1" }))));
  expect(recordsOf(search)).toHaveLength(1 + 10);
});

test("users.csv in Shift_JIS decodes as CP932 with the wave dash mapped", async () => {
  const download = await exportMembers(services(), request(MemberExportParams.parse({ encoding: "shift_jis" })));
  const rows = recordsOf(await textOf(download));
  expect(rows[0]![0]).toBe("sub");
  expect(rows[3]![6]).toBe("～花子");
  expect(rows[5]![5]).toBe("山田");
});

test("bad parameters are field errors, not failures", () => {
  const result = MemberExportParams.safeParse({ limit: "200001", page: "-1", encoding: "latin1", header: "maybe" });
  expect(result.success).toBe(false);
  const fields = Object.keys(result.error!.flatten().fieldErrors).sort();
  expect(fields).toEqual(["encoding", "header", "limit", "page"]);
  expect(EmailAddressesExportParams.safeParse({}).success).toBe(false);
  expect(WithdrawalReasonsExportParams.safeParse({ locale: "fr" }).success).toBe(false);
});

test("withdrawal reasons: labels in the staff's language, filter by locale, free text escaped", async () => {
  const all = recordsOf(
    await textOf(
      await exportWithdrawalReasons(services(), request(WithdrawalReasonsExportParams.parse({})), labelsIn("ja")),
    ),
  );
  expect(all).toEqual([
    ["cancelled_at", "locale", "reason", "reason_label", "detail"],
    ["2026-03-01 09:00:00", "ja", "price", translatorFor("ja")("withdrawal:reasons.price"), ""],
    ["2026-03-02 09:00:00", "en", "other", translatorFor("ja")("withdrawal:reasons.other"), "'@SUM(1+1)*cmd"],
  ]);
  const english = recordsOf(
    await textOf(
      await exportWithdrawalReasons(
        services(),
        request(WithdrawalReasonsExportParams.parse({ locale: "en" })),
        labelsIn("en"),
      ),
    ),
  );
  expect(english.slice(1).map((row) => [row[1], row[3]])).toEqual([["en", "Other"]]);
});

test("e-mail addresses: active members of the language; no locale counts as Japanese", async () => {
  const emailsOf = async (locale: string) =>
    recordsOf(
      await textOf(
        await exportEmailAddresses(
          services(),
          request(EmailAddressesExportParams.parse({ locale })),
          UNSUBSCRIBE_LINKS,
        ),
      ),
    )
      .slice(1)
      .map((row) => row[0]);
  const english = await emailsOf("en");
  // Member 0 and 5 and … are English; 0 is English and active.
  expect(english).toEqual([
    "member00@example.jp",
    "member05@example.jp",
    "member10@example.jp",
    "member15@example.jp",
    "member20@example.jp",
  ]);
  const japanese = await emailsOf("ja");
  expect(japanese).toContain("member01@example.jp");
  // Disabled (3), unconfirmed (4) and cancelled (6) members are left out.
  for (const excluded of ["member03@example.jp", "member04@example.jp", "member06@example.jp", "member00@example.jp"]) {
    expect(japanese).not.toContain(excluded);
  }
  expect(japanese).toHaveLength(MEMBER_COUNT - 5 - 3);
});

test("each export is recorded in the audit log with its parameters", async () => {
  const requestId = `req-${randomUUID()}`;
  const download = await exportMembers(services(), {
    actor: ACTOR,
    requestId,
    query: MemberExportParams.parse({ status: "active" }),
  });
  // Recorded when the file is first read, not before: a download never read is no export.
  const eventsOf = () =>
    database()
      .db.select()
      .from(staffAuditEvents)
      .where(sql`${staffAuditEvents.requestId} = ${requestId}`);
  expect(await eventsOf()).toEqual([]);
  const reader = download.body.getReader();
  await reader.read();
  await reader.cancel();
  const [event] = await eventsOf();
  expect(event).toMatchObject({ action: "data.export", actorSub: ACTOR.sub, targetSub: null });
  expect(event!.after).toMatchObject({ export: "users", status: "active", encoding: "utf-8", page: 0, limit: 10000 });
});

test("a COPY read in part and abandoned stops, and its connection serves other queries", async () => {
  const copy = csvCopyFor(database().db);
  const blocks = copy(sql`select n, repeat('x', 100) as filler from generate_series(1, 100000) as n`, {
    header: false,
  })[Symbol.asyncIterator]();
  const first = await blocks.next();
  expect(Buffer.from(first.value!).toString("utf8")).toMatch(/^1,x{100}\n2,x{100}\n/);
  await blocks.return?.();
  // Nothing still copies (PostgreSQL: the COPY was cancelled; PGlite made the file whole), and queries run.
  expect(
    rowsOf(
      await database().db.execute(sql`select count(*)::int as copying from pg_stat_activity
    where query like 'copy (select n, repeat%' and state = 'active'`),
    ),
  ).toEqual([{ copying: 0 }]);
  expect(rowsOf(await database().db.execute(sql`select 1 as one`))).toEqual([{ one: 1 }]);
});

test("hostile search text goes into the COPY as a literal, never as SQL", async () => {
  for (const q of ["x'); drop table member_directory; --", "\\' or 1=1 --", "$1 $$ $2 E'\\x27"]) {
    const text = await textOf(await exportMembers(services(), request(MemberExportParams.parse({ q }))));
    expect(recordsOf(text)).toHaveLength(1);
  }
  const named = await textOf(
    await exportMembers(services(), request(MemberExportParams.parse({ q: "member2", header: "0" }))),
  );
  expect(recordsOf(named).map((row) => row[1])).toEqual(
    Array.from({ length: 5 }, (_, index) => `member${20 + index}@example.jp`),
  );
});

test(`more than ${MAX_CONCURRENT_EXPORTS} downloads at once: the next is refused until one ends`, async () => {
  // Not read, a download holds no slot (a HEAD request, a client gone before the first byte): these change nothing.
  const unread = await Promise.all(
    Array.from({ length: MAX_CONCURRENT_EXPORTS + 1 }, () =>
      exportMembers(services(), request(MemberExportParams.parse({}))),
    ),
  );
  const downloads = await Promise.all(
    Array.from({ length: MAX_CONCURRENT_EXPORTS }, () =>
      exportMembers(services(), request(MemberExportParams.parse({}))),
    ),
  );
  const readers = downloads.map((download) => download.body.getReader());
  for (const reader of readers) await reader.read();
  await expect(exportMembers(services(), request(MemberExportParams.parse({})))).rejects.toMatchObject({
    code: "throttled",
  });
  // One let through before the house was full and read after: its body fails rather than run a fourth query.
  await expect(unread[0]!.body.getReader().read()).rejects.toMatchObject({ code: "throttled" });
  await readers[0]!.cancel();
  for (;;) if ((await readers[1]!.read()).done) break;
  await readers[2]!.cancel();
  const again = await exportMembers(services(), request(MemberExportParams.parse({})));
  expect(recordsOf(await textOf(again))).toHaveLength(MEMBER_COUNT + 1);
  for (const download of unread.slice(1)) await download.body.cancel();
});
