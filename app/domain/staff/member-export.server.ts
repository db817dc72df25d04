import { type SQL, and, asc, eq, isNull, notInArray, or, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { CsvCopy, Database } from "~db/client.server";
import { memberDirectory, memberProfiles, withdrawalReasons } from "~db/schema";
import { DEFAULT_LOCALE, LOCALES, type Locale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { DomainError } from "../domain-error.server";
import {
  type EmailAddressesExportQuery,
  type ExportKind,
  type MemberExportQuery,
  type WithdrawalReasonsExportQuery,
  isFlagOn,
} from "./export-params.server";
import { filterConditions } from "./member-search.server";
import { type CsvEncoding, ExcelSafeCsvPass, spreadsheetCsvOfCopy } from "./spreadsheet-csv.server";
import { type StaffActor, recordStaffAction } from "./staff-audit-log.server";
import { WITHDRAWAL_REASONS } from "../forms/form-choices";
import { unsubscribeSigningSettings, unsubscribeUrlSql } from "../newsletter/newsletter.server";

/**
 * The staff's three downloads: members (`users.csv`), withdrawal reasons and the newsletter's e-mail
 * addresses. PostgreSQL writes each file (`COPY (query) TO STDOUT WITH (FORMAT csv)`: db/client.server.ts) and
 * streams it as the client takes it; Node only makes it Excel-safe and encodes it (spreadsheet-csv.server.ts). So
 * the data held is a block of the file whatever its size, a client who leaves stops the query, and no row becomes
 * a JavaScript object (rows as objects would hold the rate well under COPY's and grow the heap with the file).
 */

/**
 * Downloads running at once in this process. Each holds a pooled PostgreSQL connection (of 10) for as long as its
 * client reads, or on PGlite the file made whole: beyond this, callers get "try again later" (429).
 */
export const MAX_CONCURRENT_EXPORTS = 3;

/** A download ready to send: its file's base name (the date is added to it), its encoding and its body. */
export interface CsvDownload {
  baseName: ExportKind;
  encoding: CsvEncoding;
  body: ReadableStream<Uint8Array>;
}

export interface ExportServices {
  db: Database;
  csvCopy: CsvCopy;
}

export interface ExportRequest<Query> {
  actor: StaffActor;
  requestId: string;
  query: Query;
}

/**
 * The file's columns are the query's, named as the header says: COPY writes the result's column names as the header
 * and every value in its text form, hence booleans as text ("true"/"false", not COPY's t/f).
 */
const named = (value: AnyPgColumn | SQL, header: string) => sql<string | null>`${value}`.as(header);
const booleanText = (value: AnyPgColumn, header: string) => sql<string>`${value}::text`.as(header);

/**
 * A timestamp column as Japan time text in the form Excel reads as a date and time ("2026-11-22 23:15:00").
 */
function japanTimeText(column: AnyPgColumn, header: string) {
  return sql<string | null>`to_char(${column} at time zone 'Asia/Tokyo', 'YYYY-MM-DD HH24:MI:SS')`.as(header);
}

// ---- members ----

export async function exportMembers(
  services: ExportServices,
  request: ExportRequest<MemberExportQuery>,
): Promise<CsvDownload> {
  const { query } = request;
  const d = memberDirectory;
  const base = services.db
    .select({
      sub: d.sub,
      email: d.email,
      email_verified: booleanText(d.emailVerified, "email_verified"),
      status: named(d.memberStatus, "status"),
      enabled: booleanText(d.enabled, "enabled"),
      family_name: d.familyName,
      given_name: d.givenName,
      locale: d.locale,
      referrer: named(d.referrerService, "referrer"),
      signed_up_at: japanTimeText(d.signedUpAt, "signed_up_at"),
      legacy_migrated_at: japanTimeText(d.legacyMigratedAt, "legacy_migrated_at"),
      cancelled_at: japanTimeText(d.cancelledAt, "cancelled_at"),
    })
    .from(d)
    .where(filterConditions(query))
    // The member_directory_signed_up_idx order: a stable order for pages and the cheapest to read in.
    .orderBy(asc(d.signedUpAt), asc(d.sub))
    .$dynamic();
  const selection = isFlagOn(query.all, false) ? base : base.limit(query.limit).offset(query.page * query.limit);
  return startDownload(services, request, {
    kind: "users",
    query: selection.getSQL(),
    header: isFlagOn(query.header, true),
  });
}

// ---- withdrawal reasons ----

/**
 * Each reason as its code (for sorting and pivots) and its label in the staff member's language, which the route
 * translates (`labelOf`): the domain holds no text. The labels go into the query (a CASE over the known reasons),
 * so PostgreSQL writes them with the rest; a reason no longer known keeps its code.
 */
export async function exportWithdrawalReasons(
  services: ExportServices,
  request: ExportRequest<WithdrawalReasonsExportQuery>,
  labelOf: (reason: string) => string,
): Promise<CsvDownload> {
  const w = withdrawalReasons;
  const labels = sql.join(
    WITHDRAWAL_REASONS.map((reason) => sql`when ${reason} then ${labelOf(reason)}`),
    sql` `,
  );
  const selection = services.db
    .select({
      cancelled_at: japanTimeText(w.createdAt, "cancelled_at"),
      locale: w.locale,
      reason: w.reason,
      reason_label: named(sql`case ${w.reason} ${labels} else ${w.reason} end`, "reason_label"),
      detail: w.detail,
    })
    .from(w)
    .where(request.query.locale ? eq(w.locale, request.query.locale) : undefined)
    .orderBy(asc(w.createdAt), asc(w.id));
  return startDownload(services, request, { kind: "withdrawal-reasons", query: selection.getSQL(), header: true });
}

// ---- e-mail addresses ----

/** What the newsletter list's unsubscribe column needs: the page's URL without a token, and the secrets that sign. */
export interface UnsubscribeLinks {
  linkBase: (locale: Locale) => string;
  sessionSecrets: string[];
}

/**
 * The newsletter list: members who are active (not cancelled, enabled, past sign-up confirmation, still in
 * Cognito), whose preferred language is `locale`, and who have not turned the newsletter off (a member without a
 * profile row receives it). The language is the directory's copy of Cognito's `locale` attribute, which the profile
 * form writes from member_profiles.preferred_language and which the mails follow; a member without one (or with an
 * unknown one) gets Japanese mail, so counts as Japanese here too. Each row carries the member's one-click
 * unsubscribe URL (app/domain/newsletter), for the sending system's List-Unsubscribe header and the footer.
 */
export async function exportEmailAddresses(
  services: ExportServices,
  request: ExportRequest<EmailAddressesExportQuery>,
  unsubscribe: UnsubscribeLinks,
): Promise<CsvDownload> {
  const d = memberDirectory;
  const p = memberProfiles;
  const { locale } = request.query;
  const otherLocales = LOCALES.filter((other) => other !== DEFAULT_LOCALE);
  const inLanguage =
    locale === DEFAULT_LOCALE
      ? or(eq(d.locale, locale), isNull(d.locale), notInArray(d.locale, otherLocales))
      : eq(d.locale, locale);
  const selection = services.db
    .select({
      email: d.email,
      familyName: d.familyName,
      givenName: d.givenName,
      unsubscribe_url: named(unsubscribeUrlSql(d.sub, unsubscribe.linkBase(locale)), "unsubscribe_url"),
    })
    .from(d)
    .leftJoin(p, eq(p.sub, d.sub))
    .where(
      and(
        eq(d.memberStatus, "active"),
        isNull(d.missingFromCognitoAt),
        inLanguage,
        sql`coalesce(${p.receivesNewsletter}, true)`,
      ),
    )
    .orderBy(asc(d.signedUpAt), asc(d.sub));
  return startDownload(services, request, {
    kind: "email-addresses",
    query: selection.getSQL(),
    header: true,
    secretSettings: unsubscribeSigningSettings(unsubscribe.sessionSecrets),
  });
}

// ---- shared ----

const runningExports = new WeakMap<Database, number>();

/**
 * Returns the body of a download that starts when it is first read: only then does it take an export slot (or fail
 * with "throttled" when another request took the last one meanwhile), record the export in the staff audit log and
 * run the query. A response whose body is never read (a HEAD request, whose body React Router drops; a client gone
 * before the answer, whose response React Router drops) thus holds nothing and records nothing. A full house is
 * refused here already ("throttled"), so that a caller can still answer "try again later" rather than a broken file.
 * The slot is given back when the body ends, fails or is cancelled.
 */
async function startDownload<Query extends { encoding: CsvEncoding }>(
  services: ExportServices,
  request: ExportRequest<Query>,
  download: { kind: ExportKind; query: SQL; header: boolean; secretSettings?: Record<string, string> },
): Promise<CsvDownload> {
  if ((runningExports.get(services.db) ?? 0) >= MAX_CONCURRENT_EXPORTS) throw new DomainError("throttled");
  const pass = new ExcelSafeCsvPass();
  let state: "unread" | "running" | "ended" = "unread";
  let blocks: AsyncIterator<Uint8Array> | undefined;
  // The log line says how far a download got: rows read against bytes the client took shows backpressure at work.
  const release = (outcome: "complete" | "cancelled" | "failed") => {
    if (state !== "running") return;
    state = "ended";
    runningExports.set(services.db, (runningExports.get(services.db) ?? 1) - 1);
    const rowsRead = Math.max(0, pass.records - (download.header ? 1 : 0));
    logger.info({ requestId: request.requestId, export: download.kind, rowsRead, outcome }, "download ended");
  };
  const begin = async (): Promise<AsyncIterator<Uint8Array>> => {
    const running = runningExports.get(services.db) ?? 0;
    if (running >= MAX_CONCURRENT_EXPORTS) throw new DomainError("throttled");
    runningExports.set(services.db, running + 1);
    state = "running";
    await recordStaffAction(services.db, {
      actor: request.actor,
      action: "data.export",
      targetSub: null,
      before: null,
      after: { export: download.kind, ...request.query },
      requestId: request.requestId,
    });
    const { header, secretSettings } = download;
    return services.csvCopy(download.query, { header, secretSettings })[Symbol.asyncIterator]();
  };
  // A generator that never started skips its finally on return(): this wrapper releases the slot either way.
  const releasingBlocks: AsyncIterableIterator<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (state === "ended") return { done: true, value: undefined };
      try {
        blocks ??= await begin();
        const next = await blocks.next();
        if (next.done) release("complete");
        return next;
      } catch (error) {
        release("failed");
        throw error;
      }
    },
    async return() {
      try {
        return (await blocks?.return?.()) ?? { done: true, value: undefined };
      } finally {
        release("cancelled");
        state = "ended";
      }
    },
  };
  return {
    baseName: download.kind,
    encoding: request.query.encoding,
    body: spreadsheetCsvOfCopy(releasingBlocks, { encoding: request.query.encoding, pass }),
  };
}
