import { type SQL, and, count, eq, gte, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { LOCALES } from "~/i18n/locales";
import { storableText } from "../forms/field-schemas";
import type { Database } from "~db/client.server";
import { memberDirectory } from "~db/schema";

/**
 * The staff's member list: one search box, filters, sorts and keyset pagination over the member directory
 * (db/schema/member-directory.ts), for the `/admin/` page and `GET /api/admin/users` (and its `/count`).
 * Every query is shaped for an index of migrations 0009 and 0010: prefix searches are ranges on the `collate "C"` search
 * keys, and every sort is (key, sub) so a page starts where the previous one ended, at any depth.
 */

/** The services a member can sign up from ("id" is this app itself): the referrer vocabulary. */
export const SERVICE_NAMES = ["id", "data", "compe", "online", "shop"] as const;

export const MEMBER_STATUSES = ["active", "cancelled", "disabled", "unconfirmed"] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];
export const LEGACY_STATES = ["migrated", "not-migrated"] as const;
export const MEMBER_SORTS = ["signed-up-desc", "signed-up-asc", "email-asc", "email-desc", "name-asc"] as const;
export type MemberSort = (typeof MEMBER_SORTS)[number];

export const DEFAULT_MEMBER_SORT: MemberSort = "signed-up-desc";
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Longer than any e-mail address or name: a longer box is a mistake, not a search. */
const MAX_SEARCH_LENGTH = 320;
/** A cursor is a sort name, a key (an e-mail at most) and a sub, base64url-encoded. */
const MAX_CURSOR_LENGTH = 600;
/** Sign-up days are Japanese calendar days; Japan has no daylight saving time, so the offset is fixed. */
const TOKYO_OFFSET_MS = 9 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SearchText = storableText().trim().max(MAX_SEARCH_LENGTH, "validation.tooLong");
const Day = z.iso.date({ error: "validation.inputError" });
const Cursor = z.string().max(MAX_CURSOR_LENGTH, "validation.inputError");

/**
 * The list's query: the `/admin/` page's GET form, the admin API's query string and the count's. Values are
 * strings as they come in a URL; an empty parameter means "not given" (parseMemberSearch drops them first).
 */
export const MemberSearchParams = z
  .object({
    q: SearchText.optional().describe(
      "One search box: a sub (UUID); an e-mail address or its start when it holds @; else the start of an e-mail " +
        'or of a name in either order ("山田太郎", "山田 太郎", "taro yamada"). Case and spaces do not matter.',
    ),
    status: z.enum(MEMBER_STATUSES, { error: "validation.selectError" }).optional(),
    locale: z.enum(LOCALES, { error: "validation.selectError" }).optional(),
    referrer: z
      .enum(SERVICE_NAMES, { error: "validation.selectError" })
      .optional()
      .describe('The service the member signed up from; "id" includes members with none recorded.'),
    signedUpFrom: Day.optional().describe("First sign-up day, inclusive (YYYY-MM-DD, Japan time)."),
    signedUpTo: Day.optional().describe("Last sign-up day, inclusive (YYYY-MM-DD, Japan time)."),
    legacy: z
      .enum(LEGACY_STATES, { error: "validation.selectError" })
      .optional()
      .describe("Whether the member was migrated from a pre-2021 account."),
    sort: z.enum(MEMBER_SORTS, { error: "validation.selectError" }).default(DEFAULT_MEMBER_SORT),
    after: Cursor.optional().describe("The `nextCursor` of the previous answer: the page after it."),
    before: Cursor.optional().describe("The `previousCursor` of the previous answer: the page before it."),
    limit: z.coerce
      .number({ error: "validation.inputError" })
      .int("validation.inputError")
      .min(1, "validation.inputError")
      .max(MAX_PAGE_SIZE, "validation.inputError")
      .default(DEFAULT_PAGE_SIZE),
  })
  .superRefine((query, context) => {
    if (query.after !== undefined && query.before !== undefined) {
      context.addIssue({ code: "custom", path: ["before"], message: "validation.inputError" });
    }
    for (const field of ["after", "before"] as const) {
      const cursor = query[field];
      if (cursor !== undefined && decodeCursor(cursor, query.sort) === null) {
        context.addIssue({ code: "custom", path: [field], message: "validation.inputError" });
      }
    }
    if (query.signedUpFrom && query.signedUpTo && query.signedUpFrom > query.signedUpTo) {
      context.addIssue({ code: "custom", path: ["signedUpTo"], message: "validation.inputError" });
    }
  });

export type MemberSearchQuery = z.output<typeof MemberSearchParams>;
export type MemberSearchField = keyof z.input<typeof MemberSearchParams>;

export type MemberSearchParse =
  | { success: true; query: MemberSearchQuery }
  | { success: false; fieldErrors: Partial<Record<MemberSearchField, string[]>> };

/** Reads a query string (or a plain object of strings): empty parameters are dropped, invalid ones reported per field. */
export function parseMemberSearch(input: URLSearchParams | Record<string, string | undefined>): MemberSearchParse {
  const entries = input instanceof URLSearchParams ? [...input.entries()] : Object.entries(input);
  const given = Object.fromEntries(entries.filter(([, value]) => value !== undefined && value.trim() !== ""));
  const result = MemberSearchParams.safeParse(given);
  if (result.success) return { success: true, query: result.data };
  return { success: false, fieldErrors: z.flattenError(result.error).fieldErrors };
}

/**
 * The query as URL parameters, for links (next and previous page, sort headers, the count): empty ones and
 * defaults omitted, so equal queries give equal URLs. Override fields with a spread: `{ ...query, after: cursor }`.
 */
export function searchParamsOf(query: Partial<MemberSearchQuery>): URLSearchParams {
  const params = new URLSearchParams();
  const { sort, limit, ...rest } = query;
  for (const [name, value] of Object.entries(rest)) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  if (sort !== undefined && sort !== DEFAULT_MEMBER_SORT) params.set("sort", sort);
  if (limit !== undefined && limit !== DEFAULT_PAGE_SIZE) params.set("limit", String(limit));
  return params;
}

// ---- the search box ----

export type SearchTerm =
  { kind: "sub"; sub: string } | { kind: "email"; prefix: string } | { kind: "emailOrName"; prefix: string };

/**
 * What the box asks for: a UUID is a sub; text with "@" an e-mail (an exact address is its own prefix); anything
 * else an e-mail or name prefix. NFKC folds full-width letters and spaces (and half-width kana) to the forms the
 * keys hold; spaces go because the name keys join family and given name without one ("山田 太郎" → "山田太郎").
 */
export function searchTermOf(text: string): SearchTerm | null {
  const trimmed = text.trim();
  if (UUID_PATTERN.test(trimmed)) return { kind: "sub", sub: trimmed.toLowerCase() };
  const prefix = trimmed.normalize("NFKC").replace(/\s+/g, "").toLowerCase();
  if (prefix === "") return null;
  return prefix.includes("@") ? { kind: "email", prefix } : { kind: "emailOrName", prefix };
}

/**
 * The least string above every string starting with `prefix`, in code point order (which is byte order in
 * UTF-8, i.e. `collate "C"`): the prefix with its last code point raised by one (skipping the surrogates, which
 * no text holds). A prefix ending in the last code point drops it and raises the one before.
 */
export function prefixUpperBound(prefix: string): string | null {
  const codePoints = [...prefix].map((char) => char.codePointAt(0) ?? 0);
  while (codePoints.length > 0) {
    const last = (codePoints.pop() ?? 0) + 1;
    if (last <= 0x10ffff) {
      codePoints.push(last >= 0xd800 && last <= 0xdfff ? 0xe000 : last);
      return String.fromCodePoint(...codePoints);
    }
  }
  return null;
}

/**
 * `key collate "C"` in [prefix, upper bound): a range the `collate "C"` index serves with a bound plan (LIKE with
 * a parameter cannot use an index in a generic prepared plan).
 */
function startsWith(key: SQL, prefix: string): SQL {
  const lower = sql`${key} collate "C" >= ${prefix}`;
  const upper = prefixUpperBound(prefix);
  return upper === null ? lower : sql`(${lower} and ${key} collate "C" < ${upper})`;
}

function searchCondition(term: SearchTerm): SQL | undefined {
  const d = memberDirectory;
  switch (term.kind) {
    case "sub":
      return eq(d.sub, term.sub);
    case "email":
      return startsWith(sql`${d.emailKey}`, term.prefix);
    case "emailOrName":
      return or(
        startsWith(sql`${d.emailKey}`, term.prefix),
        startsWith(sql`${d.nameKey}`, term.prefix),
        startsWith(sql`${d.givenNameKey}`, term.prefix),
      );
  }
}

/** The instant a Japanese calendar day (YYYY-MM-DD) starts. */
export function tokyoDayStart(day: string): Date {
  return new Date(Date.parse(`${day}T00:00:00Z`) - TOKYO_OFFSET_MS);
}

/** Every filter of the query (the search box included), for the list, the count and the download alike. */
export function filterConditions(query: MemberSearchQuery): SQL | undefined {
  const d = memberDirectory;
  const term = query.q === undefined ? null : searchTermOf(query.q);
  return and(
    term ? searchCondition(term) : undefined,
    query.status ? eq(d.memberStatus, query.status) : undefined,
    query.locale ? eq(d.locale, query.locale) : undefined,
    // A member with no recorded referrer signed up here directly: the same as "id".
    query.referrer === "id"
      ? or(eq(d.referrerService, "id"), isNull(d.referrerService))
      : query.referrer
        ? eq(d.referrerService, query.referrer)
        : undefined,
    query.signedUpFrom ? gte(d.signedUpAt, tokyoDayStart(query.signedUpFrom)) : undefined,
    query.signedUpTo ? lt(d.signedUpAt, new Date(tokyoDayStart(query.signedUpTo).getTime() + DAY_MS)) : undefined,
    query.legacy === "migrated" ? isNotNull(d.legacyMigratedAt) : undefined,
    query.legacy === "not-migrated" ? isNull(d.legacyMigratedAt) : undefined,
  );
}

// ---- sorts and cursors ----

interface SortOrder {
  /** The sort key as the index holds it. */
  key: SQL;
  /** The key as cursor text: exact, so the next page neither skips nor repeats a row. */
  cursorText: SQL;
  /** A cursor's text back as a value comparable with `key`. */
  valueOf: (text: string) => SQL;
  /** Whether the cursor text must be an integer (the microseconds of a sign-up time). */
  numericKey: boolean;
  descending: boolean;
}

const signedUpOrder = {
  key: sql`${memberDirectory.signedUpAt}`,
  // Microseconds since the epoch: a JavaScript Date would drop the microseconds PostgreSQL keeps.
  cursorText: sql`(extract(epoch from ${memberDirectory.signedUpAt}) * 1000000)::bigint::text`,
  valueOf: (text: string) => sql`(timestamptz 'epoch' + ${text}::bigint * interval '1 microsecond')`,
  numericKey: true,
};
const emailOrder = {
  key: sql`${memberDirectory.emailKey} collate "C"`,
  cursorText: sql`${memberDirectory.emailKey}`,
  valueOf: (text: string) => sql`${text}`,
  numericKey: false,
};
const nameOrder = {
  key: sql`${memberDirectory.nameKey} collate "C"`,
  cursorText: sql`${memberDirectory.nameKey}`,
  valueOf: (text: string) => sql`${text}`,
  numericKey: false,
};

const SORT_ORDERS: Record<MemberSort, SortOrder> = {
  "signed-up-desc": { ...signedUpOrder, descending: true },
  "signed-up-asc": { ...signedUpOrder, descending: false },
  "email-asc": { ...emailOrder, descending: false },
  "email-desc": { ...emailOrder, descending: true },
  "name-asc": { ...nameOrder, descending: false },
};

interface DecodedCursor {
  key: string;
  sub: string;
}

/** A row's position in one sort, opaque to callers: base64url of [sort, key, sub]. */
function encodeCursor(sort: MemberSort, key: string, sub: string): string {
  return Buffer.from(JSON.stringify([sort, key, sub])).toString("base64url");
}

/** The position, or null when the text is not a cursor of this sort (forged, damaged, or from another sort). */
function decodeCursor(cursor: string, sort: MemberSort): DecodedCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [cursorSort, key, sub] = value as unknown[];
    if (cursorSort !== sort || typeof sub !== "string" || !UUID_PATTERN.test(sub)) return null;
    // A forged key PostgreSQL cannot take (a NUL, a bigint out of range) would fail the query, not find nothing.
    const storableKey = storableText().safeParse(key);
    if (!storableKey.success) return null;
    if (SORT_ORDERS[sort].numericKey && !/^-?\d{1,18}$/.test(storableKey.data)) return null;
    return { key: storableKey.data, sub };
  } catch {
    return null;
  }
}

// ---- the list and the count ----

export interface MemberListItem {
  sub: string;
  email: string;
  emailVerified: boolean;
  status: MemberStatus;
  enabled: boolean;
  locale: string | null;
  familyName: string | null;
  givenName: string | null;
  referrerService: string | null;
  signedUpAt: Date;
  cancelledAt: Date | null;
  legacyMigratedAt: Date | null;
}

export interface MemberPage {
  members: MemberListItem[];
  /** For `after`: null on the last page. */
  nextCursor: string | null;
  /** For `before`: null on the first page. */
  previousCursor: string | null;
}

/**
 * One page of members. `after` reads forward from a cursor, `before` backward (in reverse order, then turned
 * round), each asking one row more than the page to learn whether another page follows.
 */
export async function searchMembers(db: Database, query: MemberSearchQuery): Promise<MemberPage> {
  const order = SORT_ORDERS[query.sort];
  const backward = query.before !== undefined;
  const cursor = decodeCursorOf(query);
  const rows = await selectPage(db, query, order, cursor, backward);
  const hasMore = rows.length > query.limit;
  const page = rows.slice(0, query.limit);
  if (backward) {
    page.reverse();
    // Members removed since the walk began can leave less than a page before the cursor: show the first page.
    if (!hasMore && page.length < query.limit) return searchMembers(db, { ...query, before: undefined });
  }
  const cursorOf = (row: (typeof page)[number] | undefined) =>
    row ? encodeCursor(query.sort, row.cursorText, row.sub) : null;
  const first = page[0];
  const last = page.at(-1);
  return {
    members: page.map(({ cursorText: _cursorText, ...member }) => member),
    nextCursor: backward || hasMore ? cursorOf(last) : null,
    previousCursor: backward ? (hasMore ? cursorOf(first) : null) : query.after !== undefined ? cursorOf(first) : null,
  };
}

function decodeCursorOf(query: MemberSearchQuery): DecodedCursor | null {
  const text = query.after ?? query.before;
  if (text === undefined) return null;
  const cursor = decodeCursor(text, query.sort);
  // MemberSearchParams rejects these; reaching here means the query was built without it.
  if (!cursor) throw new Error("searchMembers was given a cursor of another sort or no cursor at all");
  return cursor;
}

async function selectPage(
  db: Database,
  query: MemberSearchQuery,
  order: SortOrder,
  cursor: DecodedCursor | null,
  backward: boolean,
) {
  const d = memberDirectory;
  // Reading backward walks the same index the other way.
  const descending = order.descending !== backward;
  const direction = descending ? sql`desc` : sql`asc`;
  const position = cursor
    ? descending
      ? sql`(${order.key}, ${d.sub}) < (${order.valueOf(cursor.key)}, ${cursor.sub}::uuid)`
      : sql`(${order.key}, ${d.sub}) > (${order.valueOf(cursor.key)}, ${cursor.sub}::uuid)`
    : undefined;
  return db
    .select({
      sub: d.sub,
      email: d.email,
      emailVerified: d.emailVerified,
      status: sql<MemberStatus>`${d.memberStatus}`,
      enabled: d.enabled,
      locale: d.locale,
      familyName: d.familyName,
      givenName: d.givenName,
      referrerService: d.referrerService,
      signedUpAt: d.signedUpAt,
      cancelledAt: d.cancelledAt,
      legacyMigratedAt: d.legacyMigratedAt,
      cursorText: sql<string>`${order.cursorText}`,
    })
    .from(d)
    .where(and(filterConditions(query), position))
    .orderBy(sql`${order.key} ${direction}`, sql`${d.sub} ${direction}`)
    .limit(query.limit + 1);
}

/** How many members match the query's filters (cursors, sort and page size do not matter). */
export async function countMembers(db: Database, query: MemberSearchQuery): Promise<number> {
  const [row] = await db.select({ total: count() }).from(memberDirectory).where(filterConditions(query));
  return row?.total ?? 0;
}
