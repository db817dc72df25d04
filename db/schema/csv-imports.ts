import { sql } from "drizzle-orm";
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";

/**
 * A staff CSV import of new members (app/domain/csv-import/import-jobs.server.ts). A clean dry run stores the file
 * as a job in `validated` with one pending row per CSV line, so "start" needs no second upload. States:
 * validated → queued (staff start it) → running (a worker claimed its first row) → completed;
 * validated | queued | running → cancelled (rows not yet created become skipped; a creation in flight finishes and
 * is recorded).
 */
export const csvImportJobs = pgTable(
  "csv_import_jobs",
  {
    id: uuid().primaryKey().defaultRandom(),
    state: text().notNull().default("validated"),
    fileName: text().notNull(),
    /** How the file was decoded: utf-8 (with or without BOM) or shift_jis (CP932). */
    encoding: text().notNull(),
    createdBySub: uuid().notNull(),
    createdByEmail: text().notNull(),
    /** The upload's request id, so the job can be found in the logs. */
    requestId: text().notNull(),
    totalRows: integer().notNull(),
    /** The configured creation rate when the job was started, for the estimate staff see. */
    creationsPerSecond: real(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    queuedAt: timestamp({ withTimezone: true }),
    /** When a worker claimed the first row: the achieved rate counts from here. */
    startedAt: timestamp({ withTimezone: true }),
    finishedAt: timestamp({ withTimezone: true }),
    cancelledBySub: uuid(),
    cancelledByEmail: text(),
    /** The counts at the end (created, failed, skipped), as the audit log recorded them. */
    finalCounts: jsonb().$type<{ created: number; failed: number; skipped: number }>(),
  },
  (table) => [
    check(
      "csv_import_jobs_state_check",
      sql`${table.state} in ('validated', 'queued', 'running', 'cancelled', 'completed')`,
    ),
    // The workers' look for work: the few jobs that are queued or running, oldest first.
    index("csv_import_jobs_active_idx")
      .on(table.queuedAt)
      .where(sql`${table.state} in ('queued', 'running')`),
    // The staff's list of recent imports.
    index("csv_import_jobs_created_at_idx").on(table.createdAt),
  ],
);

/** One CSV line of a job: the validated values, and what became of them. */
export const csvImportRows = pgTable(
  "csv_import_rows",
  {
    jobId: uuid()
      .notNull()
      .references(() => csvImportJobs.id, { onDelete: "cascade" }),
    /** The line staff see in Excel (the header is row 1). */
    rowNumber: integer().notNull(),
    /** The row after validation, as the profile form stores it (app/domain/csv-import/csv-import-file.server.ts). */
    values: jsonb().$type<Record<string, unknown>>().notNull(),
    /** pending, creating (claimed by a worker), created, failed, skipped (the job was cancelled first). */
    state: text().notNull().default("pending"),
    /** The Cognito user created for the row. */
    sub: uuid(),
    failureCode: text(),
    failureDetail: text(),
    /** How many times a worker claimed the row; above 0, an earlier attempt may have reached Cognito. */
    attempts: smallint().notNull().default(0),
    /** When the row was first claimed: a Cognito user created after it may be this row's own earlier attempt. */
    firstClaimedAt: timestamp({ withTimezone: true }),
    claimedBy: text(),
    /** The claim's lease: past it, a worker that died is presumed gone and the row may be claimed again. */
    claimedUntil: timestamp({ withTimezone: true }),
    /** Not before this time (a throttled or unavailable Cognito is retried with backoff). */
    retryAt: timestamp({ withTimezone: true }),
    updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.jobId, table.rowNumber] }),
    check(
      "csv_import_rows_state_check",
      sql`${table.state} in ('pending', 'creating', 'created', 'failed', 'skipped')`,
    ),
    // The claim: a job's rows still to do (pending, or creating with a lease that may have run out), in file order.
    // Partial, so it stays as small as the work left however many rows the job had.
    index("csv_import_rows_claimable_idx")
      .on(table.jobId, table.rowNumber)
      .where(sql`${table.state} in ('pending', 'creating')`),
    // The progress counts and the failed-rows CSV read a job's rows by state.
    index("csv_import_rows_state_idx").on(table.jobId, table.state, table.rowNumber),
  ],
);

/**
 * Named rate limits shared by every app instance (app/domain/limits/throttle.server.ts): one row per limit, holding the
 * earliest time the next call may start (GCRA's "theoretical arrival time").
 */
export const throttleSlots = pgTable("throttle_slots", {
  name: text().primaryKey(),
  nextAt: timestamp({ withTimezone: true }).notNull(),
});
