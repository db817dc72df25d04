import { randomUUID } from "node:crypto";
import type { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { csvImportJobs, csvImportRows, memberProfiles } from "~db/schema";
import type { ImportRowValues } from "./csv-import-file.server";
import { CSV_IMPORT_AUDIT_ACTIONS, type ImportRowFailureCode, type JobRow, countRows } from "./import-jobs.server";
import { DomainError } from "../domain-error.server";
import { saveFromCognito } from "../directory/member-directory.server";
import { recordAccountEvent } from "../events/account-events.server";
import { recordStaffAction } from "../staff/staff-audit-log.server";
import { CSV_IMPORT_THROTTLE_NAME, type Throttle, createThrottle, pause } from "../limits/throttle.server";
import type { Config } from "~/config.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { logger } from "~/integrations/logger.server";
import { countCsvImportRow } from "~/integrations/metrics.server";

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
 * How long a claim lasts by default (CSV_IMPORT_LEASE_SECONDS). It covers the wait for a throttle slot (every lane of every instance ahead of it, a few
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
    countCsvImportRow("created");
    const { email: _email, ...profile } = values;
    // Names and language are already Cognito attributes (AdminCreateUser set them): no UserUpdate call here.
    await tx
      .insert(memberProfiles)
      .values({ sub, ...profile, referrerService: null })
      .onConflictDoNothing();
    await recordAccountEvent(tx, {
      type: "member.created",
      sub,
      occurredAt: new Date(),
      data: { email: values.email, via: "import" },
    });
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
  countCsvImportRow("failed");
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
  countCsvImportRow("retried");
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
  countCsvImportRow("skipped");
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

/**
 * The worker as the server process runs it (every instance runs one; they share jobs row by row and the rate in
 * total), on a Cognito client of its own that does not retry by itself: the worker retries a row with backoff and at
 * the shared rate, where an SDK retry would be one more AdminCreateUser outside it. `identityOn` builds the domain's
 * identity on that client; stopping the worker closes the client.
 */
export function startServerImportWorker(
  config: Pick<Config, "cognito" | "csvImport">,
  db: Database,
  identityOn: (cognito: CognitoIdentityProviderClient) => ImportIdentity,
): ImportWorker {
  const cognito = createCognitoClient(config.cognito, { maxAttempts: 1 });
  const worker = startImportWorker({ db, identity: identityOn(cognito) }, config.csvImport);
  return {
    async stop() {
      await worker.stop();
      cognito.destroy();
    },
  };
}
