import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.server";
import { csvImportJobs, csvImportRows, memberDirectory, memberProfiles } from "../../../db/schema";
import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_REPORT_MAX_PROBLEMS,
  type CsvImportProblem,
  FAILED_ROWS_EXTRA_COLUMNS,
  type ImportFileEncoding,
  type ImportRow,
  type ImportRowValues,
  readImportFile,
} from "./csv-import-file.server";
import { DomainError } from "../domain-error.server";
import { saveFromCognito } from "../directory/member-directory.server";
import { type CsvEncoding, spreadsheetCsv } from "../staff/spreadsheet-csv.server";
import { type StaffActor, recordStaffAction } from "../staff/staff-audit-log.server";
import { CSV_IMPORT_THROTTLE_NAME, type Throttle, createThrottle, pause } from "../limits/throttle.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";

/**
 * The staff's import of new members: a dry run that reports every problem, then a job persisted in PostgreSQL (one
 * row per CSV line) that a worker in every app instance works through at a shared, throttled rate. Each row is
 * created in Cognito with AdminCreateUser (Cognito mails the invitation with a temporary password), then its profile
 * is stored. A row is idempotent: a second attempt after a crash recognises the user its first attempt created.
 */

export type ImportJobState = "validated" | "queued" | "running" | "cancelled" | "completed";
export type ImportRowState = "pending" | "creating" | "created" | "failed" | "skipped";

/** Why a row was not created; texts are csv-import:rowFailures.<code>. */
export type ImportRowFailureCode =
  /** Cognito already has a user with the address (it signed up after the dry run, or another import made it). */
  | "alreadyMember"
  /** Cognito refused the values (InvalidParameter and the like). */
  | "refusedByCognito"
  /** Cognito stayed throttled or unavailable through every retry. */
  | "unavailable";

/** The dry run's answer, easy to render: totals, then the problems in file order (at most the cap, with the total). */
export interface ImportDryRunReport {
  fileName: string;
  encoding: ImportFileEncoding | null;
  /** Data rows found (the header and blank rows not counted). */
  totalRows: number;
  /** All problems found; `problems` holds the first CSV_IMPORT_REPORT_MAX_PROBLEMS of them. */
  problemCount: number;
  problems: CsvImportProblem[];
}

export type ImportValidation =
  /** The file has problems: nothing is stored; staff fix the file and upload it again. */
  | { kind: "refused"; report: ImportDryRunReport }
  /** Clean. With `store`, the job waits in `validated` for "start" (no second upload); `jobId` is null without. */
  | { kind: "clean"; report: ImportDryRunReport; jobId: string | null };

export interface ImportJobCounts {
  created: number;
  failed: number;
  skipped: number;
  /** Not yet tried, or waiting to retry. */
  pending: number;
  /** Claimed by a worker right now. */
  inFlight: number;
}

export interface ImportJobProgress {
  id: string;
  state: ImportJobState;
  fileName: string;
  encoding: ImportFileEncoding;
  totalRows: number;
  createdBy: StaffActor;
  createdAt: Date;
  queuedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  counts: ImportJobCounts;
  /** created + failed + skipped. */
  done: number;
  /** pending + inFlight. */
  remaining: number;
  /** The configured rate the job runs at (creations a second, across every instance). */
  creationsPerSecond: number | null;
  /** Rows finished a second since the first claim; null before the first. */
  achievedPerSecond: number | null;
  /** Seconds to go at the achieved rate (the configured one before there is one); null when nothing remains. */
  etaSeconds: number | null;
}

/** The audit log's actions for imports (admin:audit.actions.csv-import.*). */
export const CSV_IMPORT_AUDIT_ACTIONS = {
  start: "csv-import.start",
  cancel: "csv-import.cancel",
  complete: "csv-import.complete",
} as const;

/** Rows per statement when storing a job, and per batch of the mirror check (well below PostgreSQL's 65,535 parameters). */
const INSERT_BATCH_ROWS = 1_000;

export { FAILED_ROWS_EXTRA_COLUMNS };

async function findExistingMembers(db: Database, emails: string[]): Promise<Set<string>> {
  const existing = new Set<string>();
  for (let start = 0; start < emails.length; start += INSERT_BATCH_ROWS) {
    const batch = emails.slice(start, start + INSERT_BATCH_ROWS);
    const rows = await db
      .select({ email: memberDirectory.emailKey })
      .from(memberDirectory)
      // collate "C": the form member_directory_email_key_idx is built on, so the index serves the lookup.
      .where(
        and(inArray(sql`${memberDirectory.emailKey} collate "C"`, batch), isNull(memberDirectory.missingFromCognitoAt)),
      );
    for (const row of rows) if (row.email) existing.add(row.email);
  }
  return existing;
}

/**
 * The dry run: reads the file, checks every row (the file's own rules, then the addresses against the member
 * directory, case-insensitively), and reports every problem. A clean file is stored as a job in `validated` when
 * `store` is set (the staff page), so that starting it needs no second upload; a file with problems is stored nowhere.
 */
export async function validateImport(
  deps: { db: Database },
  input: { bytes: Uint8Array; fileName: string; actor: StaffActor; requestId: string; store: boolean },
): Promise<ImportValidation> {
  const reading = readImportFile(input.bytes);
  const existing = await findExistingMembers(
    deps.db,
    reading.rows.map((row) => row.values.email),
  );
  const memberProblems: CsvImportProblem[] = reading.rows
    .filter((row) => existing.has(row.values.email))
    .map((row) => ({ row: row.rowNumber, column: "email", code: "alreadyMember", value: row.values.email }));
  const problems = [...reading.problems, ...memberProblems].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  const report: ImportDryRunReport = {
    fileName: input.fileName,
    encoding: reading.encoding,
    totalRows: reading.totalRows,
    problemCount: problems.length,
    problems: problems.slice(0, CSV_IMPORT_REPORT_MAX_PROBLEMS),
  };
  if (problems.length > 0 || !reading.encoding) return { kind: "refused", report };
  if (!input.store) return { kind: "clean", report, jobId: null };
  const jobId = await storeJob(deps.db, input, reading.encoding, reading.rows);
  return { kind: "clean", report, jobId };
}

async function storeJob(
  db: Database,
  input: { fileName: string; actor: StaffActor; requestId: string },
  encoding: ImportFileEncoding,
  rows: ImportRow[],
): Promise<string> {
  return db.transaction(async (tx) => {
    const [job] = await tx
      .insert(csvImportJobs)
      .values({
        fileName: input.fileName,
        encoding,
        createdBySub: input.actor.sub,
        createdByEmail: input.actor.email,
        requestId: input.requestId,
        totalRows: rows.length,
      })
      .returning({ id: csvImportJobs.id });
    for (let start = 0; start < rows.length; start += INSERT_BATCH_ROWS)
      await tx.insert(csvImportRows).values(
        rows.slice(start, start + INSERT_BATCH_ROWS).map((row) => ({
          jobId: job!.id,
          rowNumber: row.rowNumber,
          values: row.values,
        })),
      );
    return job!.id;
  });
}

async function countRows(db: Database, jobId: string): Promise<ImportJobCounts> {
  const rows = await db
    .select({ state: csvImportRows.state, count: sql<number>`count(*)::int` })
    .from(csvImportRows)
    .where(eq(csvImportRows.jobId, jobId))
    .groupBy(csvImportRows.state);
  const of = (state: ImportRowState) => Number(rows.find((row) => row.state === state)?.count ?? 0);
  return {
    created: of("created"),
    failed: of("failed"),
    skipped: of("skipped"),
    pending: of("pending"),
    inFlight: of("creating"),
  };
}

type JobRow = typeof csvImportJobs.$inferSelect;

function toProgress(job: JobRow, counts: ImportJobCounts, now: Date): ImportJobProgress {
  const done = counts.created + counts.failed + counts.skipped;
  const remaining = counts.pending + counts.inFlight;
  const end = job.finishedAt ?? now;
  const elapsedS = job.startedAt ? (end.getTime() - job.startedAt.getTime()) / 1000 : 0;
  const worked = counts.created + counts.failed;
  const achievedPerSecond = job.startedAt && elapsedS > 0 ? worked / elapsedS : null;
  const rate = achievedPerSecond || job.creationsPerSecond;
  const active = job.state === "queued" || job.state === "running";
  return {
    id: job.id,
    state: job.state as ImportJobState,
    fileName: job.fileName,
    encoding: job.encoding as ImportFileEncoding,
    totalRows: job.totalRows,
    createdBy: { sub: job.createdBySub, email: job.createdByEmail },
    createdAt: job.createdAt,
    queuedAt: job.queuedAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    counts,
    done,
    remaining,
    creationsPerSecond: job.creationsPerSecond,
    achievedPerSecond,
    etaSeconds: active && remaining > 0 && rate ? Math.ceil(remaining / rate) : null,
  };
}

/** The job as staff see it (the progress page, GET /api/admin/csv-import/jobs/{id}); null when there is none. */
export async function getImportJobProgress(
  db: Database,
  jobId: string,
  now = new Date(),
): Promise<ImportJobProgress | null> {
  const [job] = await db.select().from(csvImportJobs).where(eq(csvImportJobs.id, jobId));
  if (!job) return null;
  return toProgress(job, await countRows(db, jobId), now);
}

/** The latest jobs, newest first, so staff who left a page can come back to a running import. */
export async function listImportJobs(
  db: Database,
  options: { limit: number },
  now = new Date(),
): Promise<ImportJobProgress[]> {
  const jobs = await db.select().from(csvImportJobs).orderBy(desc(csvImportJobs.createdAt)).limit(options.limit);
  return Promise.all(jobs.map(async (job) => toProgress(job, await countRows(db, job.id), now)));
}

/**
 * "Start": validated → queued, at the configured rate, recorded in the audit log. Starting again (a double submit)
 * or starting a job that is already running, finished or cancelled changes nothing and answers its progress.
 */
export async function startImportJob(
  deps: { db: Database },
  input: { jobId: string; actor: StaffActor; requestId: string; creationsPerSecond: number },
): Promise<ImportJobProgress | null> {
  const { db } = deps;
  await db.transaction(async (tx) => {
    const [queued] = await tx
      .update(csvImportJobs)
      .set({ state: "queued", queuedAt: sql`now()`, creationsPerSecond: input.creationsPerSecond })
      .where(and(eq(csvImportJobs.id, input.jobId), eq(csvImportJobs.state, "validated")))
      .returning();
    if (!queued) return;
    await recordStaffAction(tx, {
      actor: input.actor,
      action: CSV_IMPORT_AUDIT_ACTIONS.start,
      targetSub: null,
      before: { state: "validated" },
      after: { state: "queued", jobId: queued.id, fileName: queued.fileName, totalRows: queued.totalRows },
      requestId: input.requestId,
    });
  });
  return getImportJobProgress(db, input.jobId);
}

/**
 * "Cancel": a validated, queued or running job stops taking rows. Rows not yet claimed become skipped; a creation
 * already in flight finishes and is recorded as created (or failed). Cancelling again changes nothing.
 */
export async function cancelImportJob(
  deps: { db: Database },
  input: { jobId: string; actor: StaffActor; requestId: string },
): Promise<ImportJobProgress | null> {
  const { db } = deps;
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ state: csvImportJobs.state })
      .from(csvImportJobs)
      .where(eq(csvImportJobs.id, input.jobId))
      .for("update");
    if (!before || !["validated", "queued", "running"].includes(before.state)) return;
    await tx
      .update(csvImportRows)
      .set({ state: "skipped", updatedAt: sql`now()` })
      .where(and(eq(csvImportRows.jobId, input.jobId), eq(csvImportRows.state, "pending")));
    const counts = await countRows(tx, input.jobId);
    const finalCounts = { created: counts.created, failed: counts.failed, skipped: counts.skipped };
    await tx
      .update(csvImportJobs)
      .set({
        state: "cancelled",
        finishedAt: sql`now()`,
        cancelledBySub: input.actor.sub,
        cancelledByEmail: input.actor.email,
        finalCounts,
      })
      .where(eq(csvImportJobs.id, input.jobId));
    await recordStaffAction(tx, {
      actor: input.actor,
      action: CSV_IMPORT_AUDIT_ACTIONS.cancel,
      targetSub: null,
      before: { state: before.state },
      after: { state: "cancelled", jobId: input.jobId, ...finalCounts, inFlight: counts.inFlight },
      requestId: input.requestId,
    });
  });
  return getImportJobProgress(db, input.jobId);
}

export interface FailedImportRow {
  rowNumber: number;
  values: ImportRowValues;
  failureCode: ImportRowFailureCode;
}

/** Failed rows per read of the failed-rows download: the file is streamed in batches, never held whole. */
const FAILED_ROWS_BATCH = 500;

/** The job's failed rows in file order, batch by batch (keyset on the row number). */
export async function* readFailedRows(db: Database, jobId: string): AsyncGenerator<FailedImportRow[]> {
  let after = 0;
  for (;;) {
    const batch = await db
      .select({
        rowNumber: csvImportRows.rowNumber,
        values: csvImportRows.values,
        failureCode: csvImportRows.failureCode,
      })
      .from(csvImportRows)
      .where(and(eq(csvImportRows.jobId, jobId), eq(csvImportRows.state, "failed"), gt(csvImportRows.rowNumber, after)))
      .orderBy(asc(csvImportRows.rowNumber))
      .limit(FAILED_ROWS_BATCH);
    if (batch.length === 0) return;
    yield batch.map((row) => ({
      rowNumber: row.rowNumber,
      values: row.values as ImportRowValues,
      failureCode: row.failureCode as ImportRowFailureCode,
    }));
    after = batch.at(-1)!.rowNumber;
  }
}

/** The CSV columns of a failed row, in the header's order: the original values, then where and why it failed. */
export async function* failedRowCells(
  db: Database,
  jobId: string,
  reasonText: (code: ImportRowFailureCode) => string,
): AsyncGenerator<string[]> {
  const header = [...CSV_IMPORT_COLUMNS, ...FAILED_ROWS_EXTRA_COLUMNS];
  yield header;
  for await (const batch of readFailedRows(db, jobId))
    for (const row of batch) {
      const v = row.values;
      yield [
        v.email,
        v.familyName,
        v.givenName,
        String(v.birthYear),
        v.country,
        v.prefecture,
        v.occupation,
        v.organization,
        v.preferredLanguage,
        String(row.rowNumber),
        row.failureCode,
        reasonText(row.failureCode),
      ];
    }
}

/**
 * The failed-rows download: the original columns, the row it came from, the reason's code and its text in the
 * staff's language. Streamed (spreadsheet-csv.server.ts: formula-safe, UTF-8 with BOM or CP932), read in batches.
 */
export function failedRowsCsv(
  db: Database,
  jobId: string,
  options: { encoding: CsvEncoding; reasonText: (code: ImportRowFailureCode) => string },
): ReadableStream<Uint8Array> {
  return spreadsheetCsv(failedRowCells(db, jobId, options.reasonText), { encoding: options.encoding });
}

// ---------------------------------------------------------------- the worker

export type ImportIdentity = Pick<IdentityProvider, "inviteUser" | "findUser">;

export interface ImportWorkerDeps {
  db: Database;
  /** The domain's identity (DomainError failures, directory recorded), on a client that does not retry by itself. */
  identity: ImportIdentity;
}

export interface ImportWorkerOptions {
  /** Creations a second across every instance (CSV_IMPORT_CREATIONS_PER_SECOND). */
  creationsPerSecond: number;
  /** Creations in flight in this process, so that Cognito's latency does not hold the rate below the target. */
  concurrency: number;
  /** How long a claimed row stays this worker's; past it another may take it (a crashed process's rows). */
  leaseMs?: number;
  /** How often an idle worker looks for a job. */
  idlePollMs?: number;
  /** Names this worker in claimed_by (default: a random id). */
  workerId?: string;
}

/**
 * How long a claim lasts. It covers the wait for a throttle slot (every lane of every instance ahead of it, a few
 * seconds at most at sensible rates) plus the Cognito call's own deadline, with a wide margin: a lease that ran out
 * while the call was still going would only cost a second, harmless AdminCreateUser (it is recognised as ours).
 */
export const CSV_IMPORT_LEASE_MS = 120_000;
export const CSV_IMPORT_IDLE_POLL_MS = 2_000;
/** Throttled or unavailable Cognito: retried after 1 s, 2 s, 4 s … up to this. */
export const CSV_IMPORT_MAX_BACKOFF_MS = 60_000;
/** Attempts before a row that Cognito kept throttling or refusing to serve fails as "unavailable". */
export const CSV_IMPORT_MAX_ATTEMPTS = 12;
/**
 * Cognito's clock and the database's may differ a little: a user created this long before a row's first claim still
 * counts as that claim's own creation. The address was free at the dry run, so no real member can be this recent.
 */
export const COGNITO_CLOCK_SKEW_MS = 60_000;

type ClaimedRow = typeof csvImportRows.$inferSelect;

/** A job with work for this worker: queued or running, oldest first. */
async function findActiveJob(db: Database): Promise<JobRow | null> {
  const [job] = await db
    .select()
    .from(csvImportJobs)
    .where(inArray(csvImportJobs.state, ["queued", "running"]))
    .orderBy(asc(csvImportJobs.queuedAt))
    .limit(1);
  return job ?? null;
}

/**
 * Claims the job's next row: a pending one due now, or one whose claim's lease ran out (its worker died). FOR UPDATE
 * SKIP LOCKED lets workers in several processes claim side by side without waiting for, or taking, each other's row.
 */
async function claimRow(db: Database, jobId: string, workerId: string, leaseMs: number): Promise<ClaimedRow | null> {
  const claimable = sql`(${csvImportRows.jobId}, ${csvImportRows.rowNumber}) in (
    select job_id, row_number from csv_import_rows
    where job_id = ${jobId}
      and ((state = 'pending' and (retry_at is null or retry_at <= clock_timestamp()))
        or (state = 'creating' and claimed_until < clock_timestamp()))
    order by row_number
    limit 1
    for update skip locked)`;
  const [row] = await db
    .update(csvImportRows)
    .set({
      state: "creating",
      attempts: sql`${csvImportRows.attempts} + 1`,
      firstClaimedAt: sql`coalesce(${csvImportRows.firstClaimedAt}, clock_timestamp())`,
      claimedBy: workerId,
      claimedUntil: sql`clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::double precision)`,
      updatedAt: sql`clock_timestamp()`,
    })
    .where(claimable)
    .returning();
  return row ?? null;
}

/** Only while the row is still this worker's claim: a row another worker took over is theirs to record. */
const ownClaim = (row: ClaimedRow, workerId: string) =>
  and(
    eq(csvImportRows.jobId, row.jobId),
    eq(csvImportRows.rowNumber, row.rowNumber),
    eq(csvImportRows.state, "creating"),
    eq(csvImportRows.claimedBy, workerId),
  );

const released = { claimedBy: null, claimedUntil: null, updatedAt: sql`clock_timestamp()` };

async function recordCreated(db: Database, row: ClaimedRow, workerId: string, sub: string): Promise<void> {
  const values = row.values as ImportRowValues;
  await db.transaction(async (tx) => {
    const [mine] = await tx
      .update(csvImportRows)
      .set({ state: "created", sub, failureCode: null, failureDetail: null, ...released })
      .where(ownClaim(row, workerId))
      .returning({ rowNumber: csvImportRows.rowNumber });
    if (!mine) return;
    const { email: _email, ...profile } = values;
    // Names and language are already Cognito attributes (AdminCreateUser set them): no UserUpdate call here.
    await tx
      .insert(memberProfiles)
      .values({ sub, ...profile, referrerService: null })
      .onConflictDoNothing();
  });
}

async function recordFailed(
  db: Database,
  row: ClaimedRow,
  workerId: string,
  failureCode: ImportRowFailureCode,
  detail: string,
): Promise<void> {
  await db
    .update(csvImportRows)
    .set({ state: "failed", failureCode, failureDetail: detail, ...released })
    .where(ownClaim(row, workerId));
}

async function recordRetry(db: Database, row: ClaimedRow, workerId: string, detail: string): Promise<void> {
  const backoffMs = Math.min(CSV_IMPORT_MAX_BACKOFF_MS, 1000 * 2 ** Math.max(0, row.attempts - 1));
  await db
    .update(csvImportRows)
    .set({
      state: "pending",
      failureDetail: detail,
      retryAt: sql`clock_timestamp() + make_interval(secs => ${backoffMs / 1000}::double precision)`,
      ...released,
    })
    .where(ownClaim(row, workerId));
}

async function releaseClaim(db: Database, row: ClaimedRow, workerId: string): Promise<void> {
  await db
    .update(csvImportRows)
    .set({ state: "pending", ...released })
    .where(ownClaim(row, workerId));
}

async function recordSkipped(db: Database, row: ClaimedRow, workerId: string): Promise<void> {
  await db
    .update(csvImportRows)
    .set({ state: "skipped", ...released })
    .where(ownClaim(row, workerId));
}

/**
 * Cognito says the address exists. If an earlier attempt of this row may have reached Cognito (the process died,
 * or the answer was lost), the user it made is recognised: not yet signed in (FORCE_CHANGE_PASSWORD) and created
 * after the row was first claimed. It is then this row's, recorded without a second AdminCreateUser (and without a
 * second invitation mail); anyone else is a real member.
 */
async function findOwnEarlierUser(deps: ImportWorkerDeps, row: ClaimedRow, earlierAttempts: number) {
  if (earlierAttempts < 1 || !row.firstClaimedAt) return null;
  const user = await deps.identity.findUser((row.values as ImportRowValues).email);
  if (!user || user.status !== "FORCE_CHANGE_PASSWORD") return null;
  const earliest = row.firstClaimedAt.getTime() - COGNITO_CLOCK_SKEW_MS;
  return user.createdAt.getTime() >= earliest ? user : null;
}

const RETRIED_CODES = new Set(["throttled", "signInThrottled", "unavailable"]);
const ALREADY_MEMBER_CODES = new Set(["usernameExists", "emailUnavailable"]);

async function jobIsCancelled(db: Database, jobId: string): Promise<boolean> {
  const [job] = await db.select({ state: csvImportJobs.state }).from(csvImportJobs).where(eq(csvImportJobs.id, jobId));
  return job?.state === "cancelled";
}

/** One claimed row: a throttle slot, then the creation, then its record. */
async function processRow(
  deps: ImportWorkerDeps,
  throttle: Throttle,
  row: ClaimedRow,
  workerId: string,
  signal: AbortSignal,
): Promise<void> {
  const values = row.values as ImportRowValues;
  // Cancelled since the row was claimed: it never reached Cognito. Checked before the slot, so that nothing but
  // the call itself sits between the slot's time and the request (the rate is kept where Cognito counts it).
  if (await jobIsCancelled(deps.db, row.jobId)) return recordSkipped(deps.db, row, workerId);
  try {
    await throttle.takeSlot(signal);
  } catch (error) {
    // Stopping (a deploy, a shutdown): the row never reached Cognito, so it goes back for the next worker at once.
    await releaseClaim(deps.db, row, workerId);
    throw error;
  }
  try {
    const sub = await deps.identity.inviteUser({
      email: values.email,
      attributes: { family_name: values.familyName, given_name: values.givenName, locale: values.preferredLanguage },
    });
    await recordCreated(deps.db, row, workerId, sub);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (ALREADY_MEMBER_CODES.has(error.code)) {
      // This claim counted itself in `attempts`: the ones before it are what may have reached Cognito.
      const own = await findOwnEarlierUser(deps, row, row.attempts - 1);
      if (!own) return recordFailed(deps.db, row, workerId, "alreadyMember", error.code);
      await saveFromCognito(deps.db, own, [], new Date());
      return recordCreated(deps.db, row, workerId, own.sub);
    }
    if (RETRIED_CODES.has(error.code)) {
      if (row.attempts >= CSV_IMPORT_MAX_ATTEMPTS)
        return recordFailed(deps.db, row, workerId, "unavailable", error.code);
      return recordRetry(deps.db, row, workerId, error.code);
    }
    return recordFailed(deps.db, row, workerId, "refusedByCognito", error.code);
  }
}

/** Abandoned rows settled per pass of the worker's loop. */
const ABANDONED_ROWS_PER_PASS = 20;

/**
 * A cancelled job's rows that a worker claimed and then died with (the lease ran out): their creation may or may not
 * have reached Cognito, and no worker claims rows of a cancelled job. Settled by looking, never by creating: the
 * row's own user (as findOwnEarlierUser knows it) makes it created, anything else skipped.
 */
export async function settleAbandonedRows(deps: ImportWorkerDeps, workerId: string, leaseMs: number): Promise<number> {
  const abandoned = await deps.db
    .update(csvImportRows)
    .set({
      claimedBy: workerId,
      claimedUntil: sql`clock_timestamp() + make_interval(secs => ${leaseMs / 1000}::double precision)`,
    })
    .where(
      sql`(${csvImportRows.jobId}, ${csvImportRows.rowNumber}) in (
        select r.job_id, r.row_number from csv_import_rows r join csv_import_jobs j on j.id = r.job_id
        where j.state = 'cancelled' and r.state = 'creating' and r.claimed_until < clock_timestamp()
        limit ${ABANDONED_ROWS_PER_PASS}
        for update of r skip locked)`,
    )
    .returning();
  for (const row of abandoned) {
    const own = await findOwnEarlierUser(deps, row, row.attempts);
    if (!own) {
      await recordSkipped(deps.db, row, workerId);
      continue;
    }
    await saveFromCognito(deps.db, own, [], new Date());
    await recordCreated(deps.db, row, workerId, own.sub);
  }
  return abandoned.length;
}

/**
 * Ends a job with nothing left to do (no pending or claimed row): completed with its counts, recorded in the audit
 * log once (the state change decides which worker records it).
 */
async function completeIfDone(db: Database, jobId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const counts = await countRows(tx, jobId);
    if (counts.pending + counts.inFlight > 0) return;
    const finalCounts = { created: counts.created, failed: counts.failed, skipped: counts.skipped };
    const [job] = await tx
      .update(csvImportJobs)
      .set({ state: "completed", finishedAt: sql`now()`, finalCounts })
      .where(and(eq(csvImportJobs.id, jobId), inArray(csvImportJobs.state, ["queued", "running"])))
      .returning();
    if (!job) return;
    await recordStaffAction(tx, {
      actor: { sub: job.createdBySub, email: job.createdByEmail },
      action: CSV_IMPORT_AUDIT_ACTIONS.complete,
      targetSub: null,
      before: { state: "running" },
      after: { state: "completed", jobId, ...finalCounts },
      requestId: job.requestId,
    });
  });
}

async function markRunning(db: Database, jobId: string): Promise<void> {
  await db
    .update(csvImportJobs)
    .set({ state: "running", startedAt: sql`now()` })
    .where(and(eq(csvImportJobs.id, jobId), eq(csvImportJobs.state, "queued")));
}

/** Works one job with `concurrency` lanes until no row is claimable right now. */
async function workJob(
  deps: ImportWorkerDeps,
  throttle: Throttle,
  job: JobRow,
  options: Required<ImportWorkerOptions>,
  signal: AbortSignal,
): Promise<void> {
  await markRunning(deps.db, job.id);
  const lane = async () => {
    while (!signal.aborted) {
      const row = await claimRow(deps.db, job.id, options.workerId, options.leaseMs);
      if (!row) return;
      await processRow(deps, throttle, row, options.workerId, signal);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  if (!signal.aborted) await completeIfDone(deps.db, job.id);
}

export interface ImportWorker {
  /** Stops claiming; creations in flight finish first. Rows claimed but not yet sent are retaken after their lease. */
  stop(): Promise<void>;
}

/**
 * Starts the import worker in this process (every instance runs one; they share jobs row by row and the rate in
 * total). Failures are logged and the loop goes on: a database or Cognito outage only pauses the import.
 */
export function startImportWorker(deps: ImportWorkerDeps, options: ImportWorkerOptions): ImportWorker {
  const settings: Required<ImportWorkerOptions> = {
    leaseMs: CSV_IMPORT_LEASE_MS,
    idlePollMs: CSV_IMPORT_IDLE_POLL_MS,
    workerId: `import-${randomUUID()}`,
    ...options,
  };
  const throttle = createThrottle(deps.db, CSV_IMPORT_THROTTLE_NAME, settings.creationsPerSecond);
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        const job = await findActiveJob(deps.db);
        if (job) await workJob(deps, throttle, job, settings, stopping.signal);
        await settleAbandonedRows(deps, settings.workerId, settings.leaseMs);
        // Nothing claimable: no job, or the rest of the rows wait for a retry or sit in another worker's hands.
        await pause(settings.idlePollMs, stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) break;
        logger.warn({ err: error }, "the CSV import worker failed; it tries again shortly");
        await pause(settings.idlePollMs, stopping.signal).catch(() => {});
      }
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop.catch(() => {});
    },
  };
}
