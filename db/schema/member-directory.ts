import { type SQL, sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * The staff's searchable copy of every Cognito user (Cognito's ListUsers filters one attribute at a time, pages by
 * 60 and has no count, so staff search runs here). Cognito is the source of the identity columns: they are written
 * after the app's own Cognito writes, by a staff refresh (AdminGetUser) and by the reconcile job (ListUsers). The
 * columns copied from our own tables (referrer, cancellation, legacy migration) are kept by triggers (migration
 * 0009), so no write path can forget them. The full profile and questionnaire stay in member_profiles.
 */
export const memberDirectory = pgTable(
  "member_directory",
  {
    sub: uuid().primaryKey(),
    /** Cognito's Username (the pool signs in by e-mail, so this is its internal name). */
    username: text().notNull(),
    email: text().notNull(),
    emailVerified: boolean().notNull().default(false),
    /** Cognito's UserStatus: UNCONFIRMED, CONFIRMED, FORCE_CHANGE_PASSWORD, RESET_REQUIRED, … */
    cognitoStatus: text().notNull(),
    enabled: boolean().notNull().default(true),
    /** UserCreateDate: the sign-up date staff filter and sort by. */
    signedUpAt: timestamp({ withTimezone: true }).notNull(),
    /** UserLastModifiedDate. */
    cognitoUpdatedAt: timestamp({ withTimezone: true }).notNull(),
    /** The `locale` attribute: the member's preferred language (ja, en). */
    locale: text(),
    familyName: text(),
    givenName: text(),
    groups: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    // ---- copied from our own tables by triggers ----
    referrerService: text(),
    cancelledAt: timestamp({ withTimezone: true }),
    legacyMigratedAt: timestamp({ withTimezone: true }),
    // ---- bookkeeping ----
    /** When the row was last written from Cognito's answer or after one of the app's own Cognito writes. */
    syncedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** When a reconcile run or a refresh last saw the user in Cognito. */
    seenInCognitoAt: timestamp({ withTimezone: true }),
    /** Set when Cognito no longer has the user (deleted after cancellation, or deleted elsewhere). */
    missingFromCognitoAt: timestamp({ withTimezone: true }),
    // ---- search keys, derived by PostgreSQL ----
    /** Lower-cased e-mail: prefix and exact search, and the e-mail sort. */
    emailKey: text().generatedAlwaysAs((): SQL => sql`lower(${memberDirectory.email})`),
    /** Family name then given name, lower-cased, no space: "山田太郎", "yamadataro". */
    nameKey: text().generatedAlwaysAs(
      (): SQL => sql`lower(coalesce(${memberDirectory.familyName}, '') || coalesce(${memberDirectory.givenName}, ''))`,
    ),
    /** Given name first, for names typed in the Western order ("taroyamada") or a given name alone. */
    givenNameKey: text().generatedAlwaysAs(
      (): SQL => sql`lower(coalesce(${memberDirectory.givenName}, '') || coalesce(${memberDirectory.familyName}, ''))`,
    ),
    /** The one status the staff filter by: cancelled, then disabled, then unconfirmed, else active. */
    memberStatus: text().generatedAlwaysAs(
      (): SQL => sql`case
        when ${memberDirectory.cancelledAt} is not null then 'cancelled'
        when not ${memberDirectory.enabled} then 'disabled'
        when ${memberDirectory.cognitoStatus} = 'UNCONFIRMED' then 'unconfirmed'
        else 'active' end`,
    ),
  },
  (table) => [
    // Keyset pagination: every sort is (key, sub), so a page starts where the previous one ended, at any depth.
    index("member_directory_signed_up_idx").on(table.signedUpAt, table.sub),
    index("member_directory_email_key_idx").on(sql`${table.emailKey} collate "C"`, table.sub),
    index("member_directory_name_key_idx").on(sql`${table.nameKey} collate "C"`, table.sub),
    index("member_directory_given_name_key_idx").on(sql`${table.givenNameKey} collate "C"`, table.sub),
    index("member_directory_status_idx").on(table.memberStatus, table.signedUpAt, table.sub),
    // The trailing status makes a count by language or service and status (and sign-up range) an index-only scan:
    // the status is not part of the order, only read (drizzle has no INCLUDE).
    index("member_directory_locale_idx").on(table.locale, table.signedUpAt, table.sub, table.memberStatus),
    index("member_directory_referrer_idx").on(table.referrerService, table.signedUpAt, table.sub, table.memberStatus),
    index("member_directory_legacy_idx")
      .on(table.legacyMigratedAt)
      .where(sql`${table.legacyMigratedAt} is not null`),
    // The reconcile run's end: rows it did not see.
    index("member_directory_seen_idx").on(table.seenInCognitoAt),
  ],
);

/**
 * One walk of Cognito's ListUsers by the reconcile job. The row holds the page token, so a run interrupted by a
 * restart resumes where it stopped; `heartbeatAt` tells another instance whether the run is still being worked.
 */
export const directoryReconcileRuns = pgTable(
  "directory_reconcile_runs",
  {
    id: uuid().primaryKey().defaultRandom(),
    startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    heartbeatAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
    /** running, finished, failed. */
    status: text().notNull().default("running"),
    /** Cognito's PaginationToken for the next page; null before the first page and after the last. */
    paginationToken: text(),
    pagesRead: integer().notNull().default(0),
    usersSeen: integer().notNull().default(0),
    /** Drift found and fixed, by kind: { added, changed, missing } and a few subs of each for the report. */
    drift: jsonb()
      .$type<DirectoryDrift>()
      .notNull()
      .default(sql`'{"added":0,"changed":0,"missing":0,"examples":[]}'::jsonb`),
    lastError: text(),
  },
  (table) => [index("directory_reconcile_runs_started_at_idx").on(table.startedAt)],
);

export interface DirectoryDrift {
  added: number;
  changed: number;
  missing: number;
  /** Up to a few drifted users, for the report: sub, kind and the changed fields. */
  examples: { sub: string; kind: "added" | "changed" | "missing"; fields?: string[] }[];
}
