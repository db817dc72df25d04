/**
 * One CSV import worker in a process of its own, as an app instance runs it: for the tests that kill a worker
 * mid-job (kill -9) or run two processes on one PostgreSQL. Configured by environment:
 * DATABASE_URL (or DATA_DIR for PGlite), the COGNITO_* settings, CSV_IMPORT_CREATIONS_PER_SECOND,
 * CSV_IMPORT_CONCURRENCY, IMPORT_LEASE_MS. Prints "ready" once working; with IMPORT_EXIT_AFTER_JOB set to a job id,
 * exits 0 when that job has ended (PGlite allows one process per data directory, so the test waits for the exit).
 * With IMPORT_LOG_CALL_STARTS=1, prints "call-start <epoch ms>" as each AdminCreateUser call starts: the throttle
 * bounds when calls start, which is what the rate test checks (arrivals at the stand-in can bunch behind its queue).
 */
import { openDatabase } from "~db/client.server";
import { getImportJobProgress } from "~/domain/csv-import/import-jobs.server";
import { startImportWorker } from "~/domain/csv-import/import-worker.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { systemClock } from "~/services.server";
import { createDomainIdentity } from "~/composition-root.server";

const env = process.env;
const cognito = {
  region: env.COGNITO_REGION!,
  endpoint: env.COGNITO_ENDPOINT,
  userPoolId: env.COGNITO_USER_POOL_ID!,
  clientId: env.COGNITO_CLIENT_ID!,
};
const database = openDatabase({ databaseUrl: env.DATABASE_URL || undefined, dataDir: env.DATA_DIR ?? "." });
const client = createCognitoClient(cognito, { maxAttempts: 1 });
const identity = createDomainIdentity(cognito, database.db, systemClock, client);
if (env.IMPORT_LOG_CALL_STARTS === "1") {
  const inviteUser = identity.inviteUser;
  identity.inviteUser = (input) => {
    console.log(`call-start ${Date.now()}`);
    return inviteUser(input);
  };
}
const worker = startImportWorker(
  { db: database.db, identity },
  {
    creationsPerSecond: Number(env.CSV_IMPORT_CREATIONS_PER_SECOND ?? 40),
    concurrency: Number(env.CSV_IMPORT_CONCURRENCY ?? 4),
    leaseMs: Number(env.IMPORT_LEASE_MS ?? 120_000),
    idlePollMs: 200,
  },
);
console.log("ready");

const watchedJob = env.IMPORT_EXIT_AFTER_JOB;
if (watchedJob) {
  const timer = setInterval(() => {
    void getImportJobProgress(database.db, watchedJob).then(async (progress) => {
      if (progress?.state !== "completed" && progress?.state !== "cancelled") return;
      clearInterval(timer);
      await worker.stop();
      await database.close();
      process.exit(0);
    });
  }, 200);
}
