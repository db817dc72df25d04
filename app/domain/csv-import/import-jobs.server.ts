import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { csvImportJobs, csvImportRows } from "~db/schema";
import type { ImportFileEncoding } from "./csv-import-file.server";
import { type StaffActor, recordStaffAction } from "../staff/staff-audit-log.server";

/**
 * The staff's import of new members: a dry run that reports every problem (import-dry-run.server.ts), then a job
 * persisted in PostgreSQL (one row per CSV line) that a worker in every app instance works through at a shared,
 * throttled rate (import-worker.server.ts). Each row is created in Cognito with AdminCreateUser (Cognito mails the
 * invitation with a temporary password), then its profile is stored. A row is idempotent: a second attempt after a
 * crash recognises the user its first attempt created. This module holds the job's states and the staff's commands
 * and queries on it; the rows that failed are downloaded through failed-rows.server.ts.
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

export async function countRows(db: Database, jobId: string): Promise<ImportJobCounts> {
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

export type JobRow = typeof csvImportJobs.$inferSelect;

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
