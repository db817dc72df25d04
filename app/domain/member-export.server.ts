import { and, asc, eq, isNull, notInArray, or, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database, RowCursor } from "../../db/client.server";
import { memberDirectory, withdrawalReasons } from "../../db/schema";
import { DEFAULT_LOCALE, LOCALES } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { DomainError } from "./domain-error.server";
import {
  type EmailAddressesExportQuery,
  type ExportKind,
  type MemberExportQuery,
  type WithdrawalReasonsExportQuery,
  isFlagOn,
} from "./export-params.server";
import { filterConditions } from "./member-search.server";
import { type CsvCell, type CsvEncoding, spreadsheetCsv } from "./spreadsheet-csv.server";
import { type StaffActor, recordStaffAction } from "./staff-audit-log.server";

/**
 * The staff's three downloads (issue 12): members (`users.csv`), withdrawal reasons and the newsletter's e-mail
 * addresses, each read through a row cursor (db/client.server.ts) and streamed as a spreadsheet CSV as the client
 * takes it, so the data held stays one batch whatever the size, and a client who leaves closes the cursor.
 */

/**
 * Rows per cursor fetch: a few hundred KB of row objects, and few round trips per second (the row formatting in
 * Node, not the fetches, is what keeps the export under COPY's rate: README "Benchmarks").
 */
const CURSOR_BATCH_ROWS = 2_000;
/**
 * Downloads running at once in this process. Each holds a pooled PostgreSQL connection (of 10) for as long as its
 * client reads, or on PGlite a materialised result: beyond this, callers get "try again later" (429).
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
  cursor: RowCursor;
}

export interface ExportRequest<Query> {
  actor: StaffActor;
  requestId: string;
  query: Query;
}

// ---- members ----

const MEMBER_HEADER = [
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
] as const;

interface MemberRow {
  sub: string;
  email: string;
  email_verified: boolean;
  member_status: string;
  enabled: boolean;
  family_name: string | null;
  given_name: string | null;
  locale: string | null;
  referrer_service: string | null;
  signed_up_at: string;
  legacy_migrated_at: string | null;
  cancelled_at: string | null;
}

/**
 * A timestamp column as Japan time text in the form Excel reads as a date and time ("2026-11-22 23:15:00"),
 * formatted by PostgreSQL: cheaper than a Date per cell in Node, and what COPY of the same query would write.
 */
function japanTimeText(column: AnyPgColumn, alias: string) {
  return sql<string | null>`to_char(${column} at time zone 'Asia/Tokyo', 'YYYY-MM-DD HH24:MI:SS')`.as(alias);
}

function memberCells(row: MemberRow): CsvCell[] {
  return [
    row.sub,
    row.email,
    row.email_verified,
    row.member_status,
    row.enabled,
    row.family_name,
    row.given_name,
    row.locale,
    row.referrer_service,
    row.signed_up_at,
    row.legacy_migrated_at,
    row.cancelled_at,
  ];
}

export async function exportMembers(
  services: ExportServices,
  request: ExportRequest<MemberExportQuery>,
): Promise<CsvDownload> {
  const { query } = request;
  const d = memberDirectory;
  const all = isFlagOn(query.all, false);
  const base = services.db
    .select({
      sub: d.sub,
      email: d.email,
      emailVerified: d.emailVerified,
      memberStatus: d.memberStatus,
      enabled: d.enabled,
      familyName: d.familyName,
      givenName: d.givenName,
      locale: d.locale,
      referrerService: d.referrerService,
      signedUpAt: japanTimeText(d.signedUpAt, "signed_up_at"),
      legacyMigratedAt: japanTimeText(d.legacyMigratedAt, "legacy_migrated_at"),
      cancelledAt: japanTimeText(d.cancelledAt, "cancelled_at"),
    })
    .from(d)
    .where(filterConditions(query))
    // The member_directory_signed_up_idx order: a stable order for pages and the cheapest to read in.
    .orderBy(asc(d.signedUpAt), asc(d.sub))
    .$dynamic();
  const selection = all ? base : base.limit(query.limit).offset(query.page * query.limit);
  return startDownload(services, request, {
    kind: "users",
    header: isFlagOn(query.header, true) ? MEMBER_HEADER : undefined,
    rows: mapRows(services.cursor<MemberRow>(selection.getSQL(), CURSOR_BATCH_ROWS), memberCells),
  });
}

// ---- withdrawal reasons ----

interface WithdrawalReasonRow {
  created_at: string;
  locale: string;
  reason: string;
  detail: string | null;
}

/**
 * Each reason as its code (for sorting and pivots) and its label in the staff member's language, which the route
 * translates (`labelOf`): the domain holds no text.
 */
export async function exportWithdrawalReasons(
  services: ExportServices,
  request: ExportRequest<WithdrawalReasonsExportQuery>,
  labelOf: (reason: string) => string,
): Promise<CsvDownload> {
  const w = withdrawalReasons;
  const selection = services.db
    .select({
      createdAt: japanTimeText(w.createdAt, "created_at"),
      locale: w.locale,
      reason: w.reason,
      detail: w.detail,
    })
    .from(w)
    .where(request.query.locale ? eq(w.locale, request.query.locale) : undefined)
    .orderBy(asc(w.createdAt), asc(w.id));
  const header = ["cancelled_at", "locale", "reason", "reason_label", "detail"] as const;
  return startDownload(services, request, {
    kind: "withdrawal-reasons",
    header,
    rows: mapRows(services.cursor<WithdrawalReasonRow>(selection.getSQL(), CURSOR_BATCH_ROWS), (row) => [
      row.created_at,
      row.locale,
      row.reason,
      labelOf(row.reason),
      row.detail,
    ]),
  });
}

// ---- e-mail addresses ----

interface EmailAddressRow {
  email: string;
  family_name: string | null;
  given_name: string | null;
}

/**
 * The newsletter list: members who are active (not cancelled, enabled, past sign-up confirmation, still in
 * Cognito) and whose preferred language is `locale`. The language is the directory's copy of Cognito's `locale`
 * attribute, which the profile form writes from member_profiles.preferred_language and which the mails follow; a
 * member without one (or with an unknown one) gets Japanese mail, so counts as Japanese here too.
 */
export async function exportEmailAddresses(
  services: ExportServices,
  request: ExportRequest<EmailAddressesExportQuery>,
): Promise<CsvDownload> {
  const d = memberDirectory;
  const { locale } = request.query;
  const otherLocales = LOCALES.filter((other) => other !== DEFAULT_LOCALE);
  const inLanguage =
    locale === DEFAULT_LOCALE
      ? or(eq(d.locale, locale), isNull(d.locale), notInArray(d.locale, otherLocales))
      : eq(d.locale, locale);
  const selection = services.db
    .select({ email: d.email, familyName: d.familyName, givenName: d.givenName })
    .from(d)
    .where(and(eq(d.memberStatus, "active"), isNull(d.missingFromCognitoAt), inLanguage))
    .orderBy(asc(d.signedUpAt), asc(d.sub));
  return startDownload(services, request, {
    kind: "email-addresses",
    header: ["email", "family_name", "given_name"],
    rows: mapRows(services.cursor<EmailAddressRow>(selection.getSQL(), CURSOR_BATCH_ROWS), (row) => [
      row.email,
      row.family_name,
      row.given_name,
    ]),
  });
}

// ---- shared ----

async function* mapRows<Row>(batches: AsyncIterable<Row[]>, cells: (row: Row) => CsvCell[]) {
  for await (const batch of batches) {
    for (const row of batch) yield cells(row);
  }
}

const runningExports = new WeakMap<Database, number>();

/**
 * Takes an export slot (or refuses with "throttled"), records the export in the staff audit log, and returns the
 * body. The slot is given back when the body ends, fails or is cancelled, including when it is never read.
 */
async function startDownload<Query extends { encoding: CsvEncoding }>(
  services: ExportServices,
  request: ExportRequest<Query>,
  download: { kind: ExportKind; header?: readonly string[]; rows: AsyncGenerator<CsvCell[]> },
): Promise<CsvDownload> {
  const running = runningExports.get(services.db) ?? 0;
  if (running >= MAX_CONCURRENT_EXPORTS) throw new DomainError("throttled");
  runningExports.set(services.db, running + 1);
  let released = false;
  let rowsRead = 0;
  // The log line says how far a download got: rows read against bytes the client took shows backpressure at work.
  const release = (outcome: "complete" | "cancelled" | "failed") => {
    if (released) return;
    released = true;
    runningExports.set(services.db, (runningExports.get(services.db) ?? 1) - 1);
    logger.info({ requestId: request.requestId, export: download.kind, rowsRead, outcome }, "download ended");
  };
  try {
    await recordStaffAction(services.db, {
      actor: request.actor,
      action: "data.export",
      targetSub: null,
      before: null,
      after: { export: download.kind, ...request.query },
      requestId: request.requestId,
    });
  } catch (error) {
    release("failed");
    throw error;
  }
  const rows = download.rows;
  // A generator that never started skips its finally on return(): this wrapper releases the slot either way.
  const releasingRows: AsyncIterableIterator<CsvCell[]> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      try {
        const next = await rows.next();
        if (next.done) release("complete");
        else rowsRead += 1;
        return next;
      } catch (error) {
        release("failed");
        throw error;
      }
    },
    async return() {
      try {
        return await rows.return(undefined);
      } finally {
        release("cancelled");
      }
    },
  };
  return {
    baseName: download.kind,
    encoding: request.query.encoding,
    body: spreadsheetCsv(releasingRows, { header: download.header, encoding: request.query.encoding }),
  };
}
