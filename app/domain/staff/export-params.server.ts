import { z } from "zod";
import { LOCALES } from "~/i18n/locales";
import { MAX_PAGE_SIZE, MemberSearchParams } from "./member-search.server";
import { CSV_ENCODINGS } from "./spreadsheet-csv.server";

/**
 * The staff downloads' query parameters (app/domain/staff/member-export.server.ts runs them): the API's contract, the
 * downloads page's forms and the resource routes validate with these. Apart from the export itself so that the
 * contract (read by the OpenAPI document and the tests) does not load the database and mail code.
 */

export const DEFAULT_EXPORT_LIMIT = 10_000;
/** The largest page: the staff export up to 200,000 rows at a time; `all` has no cap. */
export const MAX_EXPORT_LIMIT = 200_000;
/** Page numbers past this are a typo: even at a limit of 1 the offset stays an ordinary number. */
const MAX_EXPORT_PAGE = 10_000_000;

const Encoding = z.enum(CSV_ENCODINGS, { error: "validation.selectError" }).default("utf-8");
/** A GET form's checkbox or an API flag: 1/true/on, 0/false/off. */
const Flag = z.enum(["1", "true", "on", "0", "false", "off"], { error: "validation.selectError" });
export const isFlagOn = (flag: z.infer<typeof Flag> | undefined, fallback: boolean) =>
  flag === undefined ? fallback : ["1", "true", "on"].includes(flag);
const Whole = (max: number) =>
  z.coerce
    .number({ error: "validation.inputError" })
    .int("validation.inputError")
    .min(0, "validation.inputError")
    .max(max, "validation.inputError");

/**
 * `users.csv`'s query: the admin list's search and filters (one schema, extended), then the page of rows
 * `page*limit` to `page*limit+limit-1` in sign-up order, or the whole selection with `all`. The list's `sort`,
 * `after` and `before` are accepted and ignored: a download's order is fixed (oldest first, then sub) so pages
 * fetched one after another neither skip nor repeat while members sign up.
 */
export const MemberExportParams = MemberSearchParams.safeExtend({
  page: Whole(MAX_EXPORT_PAGE).default(0).describe("Page number from 0: rows page*limit to page*limit+limit-1."),
  limit: Whole(MAX_EXPORT_LIMIT)
    .min(1, "validation.inputError")
    .default(DEFAULT_EXPORT_LIMIT)
    .describe(`Rows per page, 1 to ${MAX_EXPORT_LIMIT}.`),
  header: Flag.optional().describe("0 or false leaves the header row out (default: on)."),
  all: Flag.optional().describe("1 or true: the whole selection, ignoring page and limit."),
  encoding: Encoding.describe("utf-8 (with a BOM, for Excel; default) or shift_jis (CP932)."),
});
export type MemberExportQuery = z.output<typeof MemberExportParams>;

const LocaleChoice = z.enum(LOCALES, { error: "validation.selectError" });

export const WithdrawalReasonsExportParams = z.object({
  locale: LocaleChoice.optional().describe("Only cancellations made in this language; omitted: all."),
  encoding: Encoding.describe("utf-8 (with a BOM, for Excel; default) or shift_jis (CP932)."),
});
export type WithdrawalReasonsExportQuery = z.output<typeof WithdrawalReasonsExportParams>;

export const EmailAddressesExportParams = z.object({
  locale: z.enum(LOCALES, { error: "validation.selectRequired" }).describe("The members' preferred language."),
  encoding: Encoding.describe("utf-8 (with a BOM, for Excel; default) or shift_jis (CP932)."),
});
export type EmailAddressesExportQuery = z.output<typeof EmailAddressesExportParams>;

export const EXPORT_KINDS = ["users", "withdrawal-reasons", "email-addresses"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Each download's query schema, by kind: the page's forms and the API validate with the same one. */
export const EXPORT_PARAMS = {
  users: MemberExportParams,
  "withdrawal-reasons": WithdrawalReasonsExportParams,
  "email-addresses": EmailAddressesExportParams,
} as const;

/**
 * Whether a download needs the staff member's recent sign-in (docs/security.md, "Staff downloads and uploads": on the
 * API the token's `auth_time`, on the pages the password and code on this staff session, within 10 minutes): more
 * members than one page of the member list shows (every one with `all`, or a `limit` above the list's largest page, the
 * default 10,000 included), and the newsletter's addresses, every opted-in member's with the link that unsubscribes
 * them. A page of the list's size shows nothing the list does not; paging through a list costs one staff rate-limit
 * count a page.
 */
export function exportNeedsRecentSignIn(
  kind: ExportKind,
  query: MemberExportQuery | WithdrawalReasonsExportQuery | EmailAddressesExportQuery,
): boolean {
  if (kind === "email-addresses") return true;
  if (kind !== "users" || !("limit" in query)) return false;
  return isFlagOn(query.all, false) || query.limit > MAX_PAGE_SIZE;
}

export function isExportKind(value: string | undefined): value is ExportKind {
  return (EXPORT_KINDS as readonly (string | undefined)[]).includes(value);
}

/** A GET form's query for one download: empty fields mean "not given" (as in the admin list). */
export function parseExportQuery<Kind extends ExportKind>(kind: Kind, params: URLSearchParams) {
  const given = [...params].filter(([, value]) => value.trim() !== "");
  return EXPORT_PARAMS[kind].safeParse(Object.fromEntries(given)) as z.ZodSafeParseResult<
    z.output<(typeof EXPORT_PARAMS)[Kind]>
  >;
}
