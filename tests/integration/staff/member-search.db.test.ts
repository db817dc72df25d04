import { beforeAll, expect, test } from "vitest";
import {
  MEMBER_SORTS,
  type MemberSearchQuery,
  type MemberSort,
  countMembers,
  parseMemberSearch,
  prefixUpperBound,
  searchMembers,
  searchParamsOf,
  tokyoDayStart,
} from "~/domain/staff/member-search.server";
import { type DirectoryMemberSeed, insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { useTestDatabase } from "../../support/test-database";

const database = useTestDatabase("member-search", { ownDatabase: true });

const MEMBER_COUNT = 300;
/** 2026-01-01 00:00 in Japan: member i signs up on Japanese day floor(i / 3) after it. */
const FIRST_DAY = new Date("2025-12-31T15:00:00Z");
const DAY_US = 86_400_000_000n;
const FAMILIES = [
  ["山田", "yamada"],
  ["佐藤", "sato"],
  ["鈴木", "suzuki"],
  ["山本", "yamamoto"],
  ["田中", "tanaka"],
] as const;
const GIVENS = [
  ["太郎", "taro"],
  ["花子", "hanako"],
  ["健", "ken"],
  ["美咲", "misaki"],
] as const;
const REFERRERS = [null, "id", "data", "compe", "online", "shop"] as const;

interface ModelMember extends DirectoryMemberSeed {
  status: "active" | "cancelled" | "disabled" | "unconfirmed";
  referrer: string;
  emailKey: string;
  nameKey: string;
  givenNameKey: string;
}

/** A sub that sorts in no relation to i, so the (key, sub) tie-breaks are exercised. */
function subOf(i: number): string {
  const hex = ((i * 2654435761) % 4294967296).toString(16).padStart(8, "0");
  return `${hex}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
}

/**
 * Three members a day; the second and third of each day share their instant to the microsecond (the sub breaks
 * the tie) and all three fall within one millisecond, so a cursor that lost the microseconds would skip or repeat.
 */
function modelMember(i: number): ModelMember {
  const [family, familyLatin] = FAMILIES[i % FAMILIES.length]!;
  const [given, givenLatin] = GIVENS[Math.floor(i / FAMILIES.length) % GIVENS.length]!;
  const japanese = i % 3 !== 0;
  const familyName = japanese ? family : familyLatin[0]!.toUpperCase() + familyLatin.slice(1);
  const givenName = japanese ? given : givenLatin[0]!.toUpperCase() + givenLatin.slice(1);
  const email = `${i % 7 === 0 ? givenLatin.toUpperCase() : givenLatin}.${familyLatin}${i}@example.jp`;
  const withProfile = i % 11 !== 0;
  const cancelled = withProfile && i % 10 === 1;
  const status = cancelled
    ? "cancelled"
    : i % 10 === 2
      ? "disabled"
      : i % 10 === 3
        ? "unconfirmed"
        : ("active" as const);
  const referrerService = withProfile ? REFERRERS[i % REFERRERS.length]! : null;
  return {
    sub: subOf(i),
    email,
    familyName,
    givenName,
    locale: i % 4 === 0 ? "en" : i % 4 === 3 ? null : "ja",
    cognitoStatus: i % 10 === 3 ? "UNCONFIRMED" : "CONFIRMED",
    enabled: i % 10 !== 2,
    signedUpMicros: microsOf(FIRST_DAY) + BigInt(Math.floor(i / 3)) * DAY_US + (i % 3 === 0 ? 0n : 37n),
    withProfile,
    referrerService,
    cancelledAt: cancelled ? new Date("2026-06-01T00:00:00Z") : null,
    legacyMigratedAt: i % 8 === 5 ? new Date("2026-02-01T00:00:00Z") : null,
    status,
    referrer: referrerService ?? "id",
    emailKey: email.toLowerCase(),
    nameKey: (familyName + givenName).toLowerCase(),
    givenNameKey: (givenName + familyName).toLowerCase(),
  };
}

const model = Array.from({ length: MEMBER_COUNT }, (_, i) => modelMember(i));

beforeAll(async () => {
  await insertDirectoryMembers(database().db, model);
});

function queryOf(params: Record<string, string>): MemberSearchQuery {
  const parsed = parseMemberSearch(params);
  if (!parsed.success) throw new Error(`invalid query: ${JSON.stringify(parsed.fieldErrors)}`);
  return parsed.query;
}

/** Code point order, as `collate "C"` and uuid order compare. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function expectedOrder(members: ModelMember[], sort: MemberSort): string[] {
  const keyed = {
    "signed-up-desc": (m: ModelMember) => [m.signedUpMicros, -1] as const,
    "signed-up-asc": (m: ModelMember) => [m.signedUpMicros, 1] as const,
    "email-asc": (m: ModelMember) => [m.emailKey, 1] as const,
    "email-desc": (m: ModelMember) => [m.emailKey, -1] as const,
    "name-asc": (m: ModelMember) => [m.nameKey, 1] as const,
  }[sort];
  return [...members]
    .sort((a, b) => {
      const [keyA, sign] = keyed(a);
      const [keyB] = keyed(b);
      const byKey = keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
      return sign * (byKey || compareText(a.sub, b.sub));
    })
    .map((member) => member.sub);
}

/** Every page forward, then back again from the last: the subs in walking order, and the pages as seen. */
async function walk(params: Record<string, string>) {
  const { db } = database();
  const forward: string[][] = [];
  let page = await searchMembers(db, queryOf(params));
  expect(page.previousCursor).toBeNull();
  forward.push(page.members.map((member) => member.sub));
  while (page.nextCursor) {
    page = await searchMembers(db, queryOf({ ...params, after: page.nextCursor }));
    forward.push(page.members.map((member) => member.sub));
  }
  const backward: string[][] = [forward.at(-1)!];
  while (page.previousCursor) {
    page = await searchMembers(db, queryOf({ ...params, before: page.previousCursor }));
    backward.unshift(page.members.map((member) => member.sub));
  }
  return { subs: forward.flat(), forward, backward };
}

test.each(MEMBER_SORTS)(
  "sort %s: paging forward visits every member once in order, and back to the same first page",
  async (sort) => {
    const { subs, forward, backward } = await walk({ sort, limit: "7" });
    expect(subs).toEqual(expectedOrder(model, sort));
    expect(forward.length).toBe(Math.ceil(MEMBER_COUNT / 7));
    expect(backward).toEqual(forward);
    expect(await countMembers(database().db, queryOf({ sort }))).toBe(subs.length);
  },
);

const filters: [string, Record<string, string>, (member: ModelMember) => boolean][] = [
  ["status active", { status: "active" }, (m) => m.status === "active"],
  ["status cancelled", { status: "cancelled" }, (m) => m.status === "cancelled"],
  ["status disabled", { status: "disabled" }, (m) => m.status === "disabled"],
  ["status unconfirmed", { status: "unconfirmed" }, (m) => m.status === "unconfirmed"],
  ["locale en", { locale: "en" }, (m) => m.locale === "en"],
  ["locale ja", { locale: "ja" }, (m) => m.locale === "ja"],
  ["referrer id (no referrer counts as id)", { referrer: "id" }, (m) => m.referrer === "id"],
  ["referrer shop", { referrer: "shop" }, (m) => m.referrer === "shop"],
  ["legacy migrated", { legacy: "migrated" }, (m) => m.legacyMigratedAt != null],
  ["legacy not migrated", { legacy: "not-migrated" }, (m) => m.legacyMigratedAt == null],
  [
    "signed up 2026-01-05 to 2026-01-10 (Japanese days, inclusive)",
    { signedUpFrom: "2026-01-05", signedUpTo: "2026-01-10" },
    (m) =>
      m.signedUpMicros >= microsOf(FIRST_DAY) + 4n * DAY_US && m.signedUpMicros < microsOf(FIRST_DAY) + 10n * DAY_US,
  ],
  [
    "signed up from 2026-04-01",
    { signedUpFrom: "2026-04-01" },
    (m) => m.signedUpMicros >= microsOf(tokyoDayStart("2026-04-01")),
  ],
  [
    "active, en, from data, walked by e-mail",
    { status: "active", locale: "en", referrer: "data", sort: "email-desc" },
    (m) => m.status === "active" && m.locale === "en" && m.referrer === "data",
  ],
];

test.each(filters)(
  "filter %s: the list and the count hold exactly the matching members",
  async (_label, params, matches) => {
    const expected = model.filter(matches);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(MEMBER_COUNT);
    const sort = (params.sort ?? "signed-up-desc") as MemberSort;
    const { subs, backward, forward } = await walk({ ...params, limit: "9" });
    expect(subs).toEqual(expectedOrder(expected, sort));
    expect(backward).toEqual(forward);
    expect(await countMembers(database().db, queryOf(params))).toBe(expected.length);
  },
);

/** What the search box should find, by the rules it documents: prefixes of the e-mail and of either name order. */
function findsByPrefix(prefix: string) {
  return (m: ModelMember) =>
    m.emailKey.startsWith(prefix) || m.nameKey.startsWith(prefix) || m.givenNameKey.startsWith(prefix);
}

const exactMember = model[14]!;
const searches: [string, string, (member: ModelMember) => boolean][] = [
  ["an e-mail prefix", "taro.yamada1", (m) => m.emailKey.startsWith("taro.yamada1")],
  ["an e-mail prefix in capitals", "TARO.YAMADA1", (m) => m.emailKey.startsWith("taro.yamada1")],
  ["an exact e-mail, any case", exactMember.email.toUpperCase(), (m) => m.sub === exactMember.sub],
  [
    "an e-mail prefix with @",
    `${exactMember.emailKey.split("@")[0]}@EX`,
    (m) => m.emailKey.startsWith(`${exactMember.emailKey.split("@")[0]}@ex`),
  ],
  ["a sub, in capitals", exactMember.sub.toUpperCase(), (m) => m.sub === exactMember.sub],
  ["a Japanese family name", "山田", (m) => m.nameKey.startsWith("山田")],
  ["a full Japanese name", "山田太郎", (m) => m.nameKey === "山田太郎"],
  ["a full Japanese name with a space", "山田 太郎", (m) => m.nameKey === "山田太郎"],
  ["a full Japanese name with a full-width space", "山田　太郎", (m) => m.nameKey === "山田太郎"],
  ["a Latin name, given name first", "taro yamada", (m) => m.givenNameKey === "taroyamada"],
  ["a Latin name, family name first, full-width letters", "ＹＡＭＡＤＡ　Ｔａｒｏ", (m) => m.nameKey === "yamadataro"],
  ["a given name alone", "花子", (m) => m.givenNameKey.startsWith("花子")],
  ["a prefix of either", "ta", findsByPrefix("ta")],
];

test.each(searches)("searching %s (%s) finds exactly the matching members", async (_label, q, matches) => {
  const expected = model.filter(matches);
  expect(expected.length).toBeGreaterThan(0);
  const { subs } = await walk({ q, limit: "10" });
  expect(subs).toEqual(expectedOrder(expected, "signed-up-desc"));
  expect(await countMembers(database().db, queryOf({ q }))).toBe(expected.length);
});

test("a search that matches nobody gives an empty page and a zero count", async () => {
  const { db } = database();
  const page = await searchMembers(db, queryOf({ q: "nobody-by-this-name" }));
  expect(page).toEqual({ members: [], nextCursor: null, previousCursor: null });
  expect(await countMembers(db, queryOf({ q: "nobody-by-this-name" }))).toBe(0);
});

test("a list item carries the member's directory fields", async () => {
  const member = model[21]!;
  expect([member.status, member.legacyMigratedAt]).toEqual(["cancelled", expect.any(Date)]);
  const page = await searchMembers(database().db, queryOf({ q: member.sub }));
  expect(page.members).toEqual([
    {
      sub: member.sub,
      email: member.email,
      emailVerified: true,
      status: member.status,
      enabled: true,
      locale: member.locale,
      familyName: member.familyName,
      givenName: member.givenName,
      referrerService: member.referrerService,
      signedUpAt: new Date(Number(member.signedUpMicros / 1000n)),
      cancelledAt: member.cancelledAt,
      legacyMigratedAt: member.legacyMigratedAt,
    },
  ]);
});

test("empty parameters mean not given; defaults apply", () => {
  const parsed = parseMemberSearch(new URLSearchParams("q=&status=&locale=&sort=&limit=&after="));
  expect(parsed).toEqual({ success: true, query: { sort: "signed-up-desc", limit: 50 } });
});

test("bad parameters are reported per field, never thrown", () => {
  const parsed = parseMemberSearch({
    status: "sleeping",
    locale: "fr",
    referrer: "elsewhere",
    legacy: "maybe",
    sort: "age",
    limit: "101",
    signedUpFrom: "2026-02-30",
    signedUpTo: "yesterday",
  });
  expect(parsed.success).toBe(false);
  if (parsed.success) return;
  expect(Object.keys(parsed.fieldErrors).sort()).toEqual(
    ["legacy", "limit", "locale", "referrer", "signedUpFrom", "signedUpTo", "sort", "status"].sort(),
  );
  expect(parsed.fieldErrors.status).toEqual(["validation.selectError"]);

  for (const limit of ["0", "-1", "2.5", "many"]) {
    expect(parseMemberSearch({ limit })).toMatchObject({ success: false, fieldErrors: { limit: expect.any(Array) } });
  }
  expect(parseMemberSearch({ signedUpFrom: "2026-03-02", signedUpTo: "2026-03-01" })).toMatchObject({
    success: false,
    fieldErrors: { signedUpTo: ["validation.inputError"] },
  });
  expect(parseMemberSearch({ q: "x".repeat(321) })).toMatchObject({
    success: false,
    fieldErrors: { q: ["validation.tooLong"] },
  });
});

test("text PostgreSQL cannot hold is a field error, in the box and in a forged cursor", () => {
  expect(parseMemberSearch({ q: "山田\u0000" })).toMatchObject({
    success: false,
    fieldErrors: { q: ["validation.invalidCharacters"] },
  });
  const forged = (key: string, sort = "email-asc") =>
    Buffer.from(JSON.stringify([sort, key, crypto.randomUUID()])).toString("base64url");
  expect(parseMemberSearch({ sort: "email-asc", after: forged("a@example.jp") }).success).toBe(true);
  expect(parseMemberSearch({ sort: "email-asc", after: forged("a\u0000") }).success).toBe(false);
  expect(parseMemberSearch({ after: forged("9".repeat(19), "signed-up-desc") }).success).toBe(false);
});

test("a cursor must be one this list made, for the same sort; after and before exclude each other", async () => {
  const page = await searchMembers(database().db, queryOf({ limit: "5" }));
  const cursor = page.nextCursor!;
  expect(parseMemberSearch({ after: cursor }).success).toBe(true);
  expect(parseMemberSearch({ after: cursor, sort: "email-asc" })).toMatchObject({
    success: false,
    fieldErrors: { after: ["validation.inputError"] },
  });
  for (const forged of ["garbage", Buffer.from('["signed-up-desc","1; drop table x","x"]').toString("base64url")]) {
    expect(parseMemberSearch({ before: forged })).toMatchObject({
      success: false,
      fieldErrors: { before: expect.any(Array) },
    });
  }
  expect(parseMemberSearch({ after: cursor, before: cursor })).toMatchObject({
    success: false,
    fieldErrors: { before: ["validation.inputError"] },
  });
});

test("the query as link parameters omits empty values and defaults, and reads back the same", () => {
  const query = queryOf({ q: "山田", status: "active", sort: "email-asc", limit: "20" });
  const params = searchParamsOf({ ...query, after: undefined });
  expect(params.toString()).toBe(
    new URLSearchParams({ q: "山田", status: "active", sort: "email-asc", limit: "20" }).toString(),
  );
  expect(parseMemberSearch(params)).toEqual({ success: true, query });
  expect(searchParamsOf(queryOf({})).toString()).toBe("");
});

test("a prefix's upper bound is the least string above everything it starts", () => {
  expect(prefixUpperBound("abc")).toBe("abd");
  expect(prefixUpperBound("山田")).toBe(`山${String.fromCodePoint("田".codePointAt(0)! + 1)}`);
  expect(prefixUpperBound("a\u{10FFFF}")).toBe("b");
  expect(prefixUpperBound("\u{D7FF}")).toBe("\u{E000}");
  expect(prefixUpperBound("\u{10FFFF}")).toBeNull();
});

test("sign-up days are Japanese calendar days", () => {
  expect(tokyoDayStart("2026-01-01").toISOString()).toBe("2025-12-31T15:00:00.000Z");
});
