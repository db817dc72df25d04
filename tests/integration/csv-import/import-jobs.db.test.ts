import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { parse } from "csv-parse/sync";
import { and, eq, inArray } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type DatabaseHandle, openDatabase } from "~db/client.server";
import { csvImportRows, memberDirectory, memberProfiles, staffAuditEvents } from "~db/schema";
import { type ImportWorkerOptions, startImportWorker } from "~/domain/csv-import/import-worker.server";
import { metricsExposition } from "~/integrations/metrics.server";
import { cancelImportJob, getImportJobProgress, startImportJob } from "~/domain/csv-import/import-jobs.server";
import { failedRowsCsv } from "~/domain/csv-import/failed-rows.server";
import { validateImport } from "~/domain/csv-import/import-dry-run.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { StandIns } from "~/server/start-server";
import { systemClock } from "~/services.server";
import { createDomainIdentity } from "~/composition-root.server";
import { mailboxCountsTo, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { IMPORT_HEADER, importCsv } from "../../support/csv-import-files";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { getFault, getRequestLog, resetHarness, setFault } from "../../support/stand-ins/stand-in/harness-client";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { spawnNodeScript } from "../../support/node-child";
import { busiestWindow } from "../../support/busiest-window";
import { openTestDatabase } from "../../support/test-database";

// Real parts: the Cognito stand-in over HTTP through the AWS SDK (its invitation mails land in the dev mailbox), and
// PGlite or, with TEST_DATABASE_URL, PostgreSQL. Workers run in this process, or in child processes (kill -9, and two
// processes on PostgreSQL). Row counts are small and rates high, so the file takes seconds.
const temp = makeTempDir("csv-import");
let stack: StandIns;
let handle: DatabaseHandle;
let databaseUrl: string | undefined;
let dropOwnDatabase = async () => {};
const staff = { sub: randomUUID(), email: "staff@csv-import.example.jp" };

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  databaseUrl = await ownPostgresDatabase();
  handle = openTestDatabase(temp.dir, databaseUrl);
  await handle.migrate();
}, 180_000);

afterAll(async () => {
  await handle?.close();
  await dropOwnDatabase();
  await stack?.stop();
  temp.remove();
});

/**
 * On PostgreSQL, a database of this file's own: every app server's worker takes any queued job, and a server of
 * another test file, on the shared database, would work these jobs against its own stand-in.
 */
async function ownPostgresDatabase(): Promise<string | undefined> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return undefined;
  const name = `csv_import_${randomUUID().slice(0, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  dropOwnDatabase = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  };
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const endpoint = () => stack.env.COGNITO_ENDPOINT!;

/** A run of unique addresses for one test, so tests sharing the stand-in and the database never collide. */
function members(label: string, count: number): string[] {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, index) => `${label}-${run}-${index}@csv-import.example.jp`);
}

const csvOf = (emails: string[]) => new TextEncoder().encode(importCsv(emails));

async function storedJob(emails: string[]): Promise<string> {
  const validation = await validateImport(
    { db: handle.db },
    { bytes: csvOf(emails), fileName: "members.csv", actor: staff, requestId: randomUUID(), store: true },
  );
  if (validation.kind !== "clean" || !validation.jobId) throw new Error(JSON.stringify(validation.report.problems));
  return validation.jobId;
}

function importIdentity() {
  const client = createCognitoClient(cognitoConfigOf(stack), { maxAttempts: 1 });
  return createDomainIdentity(cognitoConfigOf(stack), handle.db, systemClock, client);
}

function inProcessWorker(options: Partial<ImportWorkerOptions> = {}) {
  return startImportWorker(
    { db: handle.db, identity: importIdentity() },
    { creationsPerSecond: 200, concurrency: 4, idlePollMs: 100, ...options },
  );
}

async function waitForEnd(jobId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const progress = await getImportJobProgress(handle.db, jobId);
    if (progress?.state === "completed" || progress?.state === "cancelled") return progress;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not end: ${JSON.stringify(progress)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Invitation mails the stand-in sent, per address. */
const invitationsTo = (emails: string[]) => mailboxCountsTo(mailboxDirectory(temp.dir), emails);

/** AdminCreateUser calls the stand-in received since `since` (epoch ms), by time. */
/** The CSV import rows this process's metrics have counted, by outcome. */
async function importRowsCounted(): Promise<{ created: number; failed: number }> {
  const { body } = await metricsExposition();
  const count = (outcome: string) =>
    Number(new RegExp(`^csv_import_rows_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(body)?.[1] ?? 0);
  return { created: count("created"), failed: count("failed") };
}

async function creationTimes(since: number): Promise<number[]> {
  return (await getRequestLog(endpoint()))
    .filter((request) => request.operation === "AdminCreateUser" && request.at >= since)
    .map((request) => request.at)
    .sort((a, b) => a - b);
}

test("a small import creates each member once: Cognito user, profile, directory row and one invitation mail", async () => {
  const emails = members("small", 6);
  const jobId = await storedJob(emails);
  expect((await getImportJobProgress(handle.db, jobId))?.state).toBe("validated");
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req-start", creationsPerSecond: 200 });
  const worker = inProcessWorker();
  const progress = await waitForEnd(jobId);
  await worker.stop();

  expect(progress).toMatchObject({ state: "completed", done: 6, remaining: 0 });
  expect(progress.counts).toMatchObject({ created: 6, failed: 0, skipped: 0 });
  const cognito = withDomainErrors(createIdentityProvider(cognitoConfigOf(stack)));
  for (const email of emails) {
    const user = await cognito.getUser(email);
    expect(user.status).toBe("FORCE_CHANGE_PASSWORD");
    expect(user.attributes.locale).toBe("ja");
  }
  const rows = await handle.db.select().from(csvImportRows).where(eq(csvImportRows.jobId, jobId));
  const subs = rows.map((row) => row.sub!);
  const profiles = await handle.db.select().from(memberProfiles).where(inArray(memberProfiles.sub, subs));
  expect(profiles.map((profile) => profile.occupation)).toEqual(Array(6).fill("design"));
  const directory = await handle.db.select().from(memberDirectory).where(inArray(memberDirectory.sub, subs));
  expect(directory.map((row) => row.email).sort()).toEqual([...emails].sort());
  expect([...(await invitationsTo(emails)).values()]).toEqual(Array(6).fill(1));
  const audit = await handle.db
    .select({ action: staffAuditEvents.action, after: staffAuditEvents.after })
    .from(staffAuditEvents)
    .where(inArray(staffAuditEvents.action, ["csv-import.start", "csv-import.complete"]));
  expect(audit.filter((event) => event.after?.jobId === jobId).map((event) => event.action)).toEqual([
    "csv-import.start",
    "csv-import.complete",
  ]);
});

test("a row whose address Cognito already has fails with its reason, and the failed-rows CSV lists it", async () => {
  const emails = members("taken", 3);
  // Created behind the app's back: not in the directory, so the dry run passes, and Cognito refuses at creation.
  await withDomainErrors(createIdentityProvider(cognitoConfigOf(stack))).createUnmailedUser({
    email: emails[1]!,
    attributes: {},
  });
  const jobId = await storedJob(emails);
  const rowsBefore = await importRowsCounted();
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 200 });
  const worker = inProcessWorker();
  const progress = await waitForEnd(jobId);
  await worker.stop();

  expect(progress.counts).toMatchObject({ created: 2, failed: 1 });
  // The operators' metrics count the rows this process settled (docs/deployment.md, "Metrics").
  const rowsAfter = await importRowsCounted();
  expect(rowsAfter.created - rowsBefore.created).toBe(2);
  expect(rowsAfter.failed - rowsBefore.failed).toBe(1);
  const stream = failedRowsCsv(handle.db, jobId, { encoding: "utf-8", reasonText: (code) => `reason:${code}` });
  const text = await new Response(stream).text();
  const [header, ...failed] = parse(text, { bom: true }) as string[][];
  expect(header).toEqual([...IMPORT_HEADER.split(","), "source_row", "failure_code", "failure_reason"]);
  expect(failed).toEqual([
    [
      emails[1],
      "山田",
      "花子1",
      "1990",
      "JP",
      "東京都",
      "design",
      "設計事務所",
      "ja",
      "3",
      "alreadyMember",
      "reason:alreadyMember",
    ],
  ]);
});

test("the dry run refuses addresses the member directory already has, case-insensitively, and stores nothing", async () => {
  const [taken, free] = members("mirror", 2);
  await handle.db.insert(memberDirectory).values({
    sub: randomUUID(),
    username: randomUUID(),
    email: taken!,
    cognitoStatus: "CONFIRMED",
    signedUpAt: new Date(),
    cognitoUpdatedAt: new Date(),
  });
  const validation = await validateImport(
    { db: handle.db },
    { bytes: csvOf([free!, taken!.toUpperCase()]), fileName: "m.csv", actor: staff, requestId: "r", store: true },
  );
  expect(validation).toEqual({
    kind: "refused",
    report: {
      fileName: "m.csv",
      encoding: "utf-8",
      totalRows: 2,
      problemCount: 1,
      problems: [{ row: 3, column: "email", code: "alreadyMember", value: taken }],
    },
  });
});

test("a row whose earlier attempt reached Cognito (the answer lost) is recorded with that user, with no second mail", async () => {
  const [email] = members("lost-answer", 1);
  const jobId = await storedJob([email!]);
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 200 });
  // As a worker that died after AdminCreateUser: the row claimed once, its lease run out, the user and mail made.
  await handle.db
    .update(csvImportRows)
    .set({ state: "creating", attempts: 1, firstClaimedAt: new Date(Date.now() - 5_000), claimedUntil: new Date(0) })
    .where(eq(csvImportRows.jobId, jobId));
  const earlierSub = await withDomainErrors(createIdentityProvider(cognitoConfigOf(stack))).inviteUser({
    email: email!,
    attributes: { locale: "ja" },
  });
  const worker = inProcessWorker();
  const progress = await waitForEnd(jobId);
  await worker.stop();

  expect(progress.counts).toMatchObject({ created: 1, failed: 0 });
  const [row] = await handle.db.select().from(csvImportRows).where(eq(csvImportRows.jobId, jobId));
  expect(row).toMatchObject({ state: "created", sub: earlierSub, attempts: 2 });
  const [directoryRow] = await handle.db.select().from(memberDirectory).where(eq(memberDirectory.sub, earlierSub));
  expect(directoryRow?.email).toBe(email);
  expect((await invitationsTo([email!])).get(email!)).toBe(1);
});

test("a cancelled job's row whose worker died mid-creation is settled by looking: created if its user exists", async () => {
  const [made, notMade] = members("abandoned", 2);
  const jobId = await storedJob([made!, notMade!]);
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 200 });
  // Both rows claimed by a worker that died; only the first one's AdminCreateUser had reached Cognito.
  await handle.db
    .update(csvImportRows)
    .set({ state: "creating", attempts: 1, firstClaimedAt: new Date(Date.now() - 5_000), claimedUntil: new Date(0) })
    .where(eq(csvImportRows.jobId, jobId));
  const sub = await withDomainErrors(createIdentityProvider(cognitoConfigOf(stack))).inviteUser({
    email: made!,
    attributes: {},
  });
  await cancelImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req" });
  const worker = inProcessWorker();
  await expect
    .poll(async () => (await getImportJobProgress(handle.db, jobId))?.counts, { timeout: 10_000 })
    .toMatchObject({ created: 1, skipped: 1, inFlight: 0 });
  await worker.stop();
  const rows = await handle.db
    .select()
    .from(csvImportRows)
    .where(eq(csvImportRows.jobId, jobId))
    .orderBy(csvImportRows.rowNumber);
  expect(rows.map((row) => [row.state, row.sub])).toEqual([
    ["created", sub],
    ["skipped", null],
  ]);
  expect((await invitationsTo([made!, notMade!])).get(notMade!)).toBe(0);
});

test("a throttled Cognito is retried, not failed, and every row is created once", async () => {
  const emails = members("throttled", 4);
  const jobId = await storedJob(emails);
  await setFault(endpoint(), { mode: "throttle", operations: ["AdminCreateUser"], times: 3 });
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 200 });
  const worker = inProcessWorker();
  try {
    const progress = await waitForEnd(jobId);
    expect(progress.counts).toMatchObject({ created: 4, failed: 0 });
  } finally {
    await worker.stop();
    await resetHarness(endpoint());
  }
  const retried = await handle.db.select().from(csvImportRows).where(eq(csvImportRows.jobId, jobId));
  expect(retried.reduce((sum, row) => sum + row.attempts, 0)).toBe(4 + 3);
  expect([...(await invitationsTo(emails)).values()]).toEqual(Array(4).fill(1));
});

test("cancel stops the job: rows not yet created are skipped, the ones created stay, the audit log has it", async () => {
  const emails = members("cancel", 20);
  const jobId = await storedJob(emails);
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 10 });
  const worker = inProcessWorker({ creationsPerSecond: 10, concurrency: 2 });
  await expect
    .poll(async () => (await getImportJobProgress(handle.db, jobId))?.counts.created, { timeout: 10_000 })
    .toBeGreaterThanOrEqual(3);
  await cancelImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req-cancel" });
  // Creations in flight at the cancel finish and are recorded.
  await expect
    .poll(async () => (await getImportJobProgress(handle.db, jobId))?.counts.inFlight, { timeout: 10_000 })
    .toBe(0);
  await worker.stop();

  const progress = (await getImportJobProgress(handle.db, jobId))!;
  expect(progress.state).toBe("cancelled");
  expect(progress.counts.skipped).toBeGreaterThan(0);
  expect(progress.counts.created + progress.counts.skipped).toBe(20);
  const invited = await invitationsTo(emails);
  expect([...invited.values()].filter((count) => count === 1)).toHaveLength(progress.counts.created);
  const [cancelEvent] = await handle.db
    .select()
    .from(staffAuditEvents)
    .where(eq(staffAuditEvents.requestId, "req-cancel"));
  expect(cancelEvent).toMatchObject({ action: "csv-import.cancel", actorEmail: staff.email });
});

// ---------------------------------------------------------------- processes

function spawnWorker(env: Record<string, string>): ChildProcess {
  return spawnNodeScript("tests/support/csv-import-worker-child.ts", [], {
    env: {
      ...process.env,
      ...stack.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: temp.dir }),
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
}

async function ready(child: ChildProcess): Promise<void> {
  let output = "";
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    if (output.includes("ready")) return;
  }
  throw new Error("the worker process ended before it was ready");
}

/** PGlite is one process per data directory: the test's own handle steps aside while a child works on it. */
async function withDatabaseLent<T>(run: () => Promise<T>): Promise<T> {
  if (databaseUrl) return run();
  await handle.close();
  try {
    return await run();
  } finally {
    handle = openDatabase({ dataDir: temp.dir });
  }
}

test("a worker killed mid-job (kill -9) is replaced and nobody is created or invited twice", async () => {
  const CONCURRENCY = 4;
  const emails = members("crash", 24);
  const jobId = await storedJob(emails);
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: 20 });
  const since = Date.now();
  const env = {
    CSV_IMPORT_CREATIONS_PER_SECOND: "20",
    CSV_IMPORT_CONCURRENCY: String(CONCURRENCY),
    IMPORT_LEASE_MS: "1500",
  };
  let held: (typeof csvImportRows.$inferSelect)[];
  try {
    await withDatabaseLent(async () => {
      const first = spawnWorker(env);
      await ready(first);
      // Some rows created by the first worker, then every one of its lanes held inside an AdminCreateUser call:
      // the kill lands with rows claimed under lease whose calls reached Cognito and were never carried out.
      await expect.poll(async () => (await creationTimes(since)).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(8);
      await setFault(endpoint(), { mode: "slow", delayMs: 600_000, operations: ["AdminCreateUser"] });
      await expect
        .poll(async () => (await getFault(endpoint())).applied, { timeout: 20_000 })
        .toBeGreaterThanOrEqual(CONCURRENCY);
      first.kill("SIGKILL");
      await once(first, "exit");
      // The stand-in drops a held request once its client is gone: none of them can create a user later.
      await expect
        .poll(async () => {
          const fault = await getFault(endpoint());
          return fault.dropped === fault.applied;
        })
        .toBe(true);
    });
    held = await handle.db
      .select()
      .from(csvImportRows)
      .where(and(eq(csvImportRows.jobId, jobId), eq(csvImportRows.state, "creating")));
    await resetHarness(endpoint());
    await withDatabaseLent(async () => {
      const second = spawnWorker({ ...env, IMPORT_EXIT_AFTER_JOB: jobId });
      const [code] = (await once(second, "exit")) as [number];
      expect(code).toBe(0);
    });
  } finally {
    await resetHarness(endpoint());
  }

  // Each lane held one claimed row when the worker died (fewer only if a held call passed the client's deadline).
  expect(held.length).toBeGreaterThan(0);
  const progress = (await getImportJobProgress(handle.db, jobId))!;
  expect(progress.counts).toMatchObject({ created: 24, failed: 0 });
  const rows = await handle.db.select().from(csvImportRows).where(eq(csvImportRows.jobId, jobId));
  // The rows the dead worker held were taken over once their lease ran out, and created by the second worker.
  const attemptsAtKill = new Map(held.map((row) => [row.rowNumber, row.attempts]));
  const takenOver = rows.filter((row) => attemptsAtKill.has(row.rowNumber));
  expect(takenOver.every((row) => row.state === "created" && row.attempts > attemptsAtKill.get(row.rowNumber)!)).toBe(
    true,
  );
  const cognito = withDomainErrors(createIdentityProvider(cognitoConfigOf(stack)));
  for (const row of rows) expect((await cognito.getUser(row.sub!)).email).toBeDefined();
  expect(new Set(rows.map((row) => row.sub)).size).toBe(24);
  expect([...(await invitationsTo(emails)).values()]).toEqual(Array(24).fill(1));
}, 120_000);

test("two workers share one job and never start calls above the configured rate in total", async () => {
  const RATE = 20;
  const emails = members("pair", 50);
  const jobId = await storedJob(emails);
  await startImportJob({ db: handle.db }, { jobId, actor: staff, requestId: "req", creationsPerSecond: RATE });
  // When each AdminCreateUser call starts, in the workers themselves: the throttle bounds starts, while arrivals at
  // the stand-in can bunch behind its own queue on a loaded machine.
  const callStarts: number[] = [];
  const env = { CSV_IMPORT_CREATIONS_PER_SECOND: String(RATE), CSV_IMPORT_CONCURRENCY: "4" };
  if (databaseUrl) {
    // PostgreSQL: two processes, as two app instances would run.
    const workers = [
      spawnWorker({ ...env, IMPORT_EXIT_AFTER_JOB: jobId, IMPORT_LOG_CALL_STARTS: "1" }),
      spawnWorker({ ...env, IMPORT_EXIT_AFTER_JOB: jobId, IMPORT_LOG_CALL_STARTS: "1" }),
    ];
    for (const worker of workers) {
      // Line by line: a chunk of the pipe may end in the middle of a line.
      createInterface({ input: worker.stdout! }).on("line", (line) => {
        const start = /^call-start (\d+)$/.exec(line);
        if (start) callStarts.push(Number(start[1]));
      });
    }
    await Promise.all(workers.map((worker) => once(worker, "exit")));
  } else {
    // PGlite: one process per data directory, so two workers in this one.
    const recordingStarts = () => {
      const identity = importIdentity();
      const inviteUser = identity.inviteUser;
      identity.inviteUser = (input) => {
        callStarts.push(Date.now());
        return inviteUser(input);
      };
      return identity;
    };
    const workers = [recordingStarts(), recordingStarts()].map((identity) =>
      startImportWorker({ db: handle.db, identity }, { creationsPerSecond: RATE, concurrency: 4, idlePollMs: 100 }),
    );
    await waitForEnd(jobId);
    await Promise.all(workers.map((worker) => worker.stop()));
  }

  const progress = (await getImportJobProgress(handle.db, jobId))!;
  expect(progress.counts).toMatchObject({ created: 50, failed: 0 });
  const starts = callStarts.sort((a, b) => a - b);
  expect(starts).toHaveLength(50);
  // Slots are 50 ms apart and a call starts less than one spacing after its slot (throttle.server.ts), so a window
  // of a second holds at most the rate's calls and one late from the window before.
  expect(busiestWindow(starts, 1000)).toBeLessThanOrEqual(RATE + 1);
}, 60_000);
