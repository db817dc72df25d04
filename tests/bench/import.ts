/**
 * The staff CSV import at its target size: a 10,000-row file checked (dry run) and stored as a job, then created in
 * the Cognito stand-in by import workers (BENCH_WORKERS of them in this process, sharing the database's throttle)
 * at the configured rate. Reports the dry run's time, the achieved creation rate at the stand-in (its request log)
 * against the configured one (target: at least 0.9, never above 1.0), and the busiest second.
 *
 *   npm run bench:import    # DATABASE_URL (default postgres://postgres@127.0.0.1:5432/bench_import),
 *                           # BENCH_ROWS=10000, BENCH_RATE=40, BENCH_WORKERS=2, BENCH_CONCURRENCY=8
 *
 * A report, never a pass/fail test. The stand-in (cognito-local) keeps a pool as one JSON file; it is saved behind
 * the writes (stand-in/write-behind-store.ts), else each creation would cost in proportion to the pool's size: the
 * per-thousand table shows whether the stand-in keeps up as the pool grows.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { getImportJobProgress, startImportJob } from "~/domain/csv-import/import-jobs.server";
import { startImportWorker } from "~/domain/csv-import/import-worker.server";
import { validateImport } from "~/domain/csv-import/import-dry-run.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { type Throttle, createThrottle } from "~/domain/limits/throttle.server";
import { systemClock } from "~/services.server";
import { createDomainIdentity } from "~/composition-root.server";
import { type Database, openDatabase } from "~db/client.server";
import { startEmbeddedStack } from "../support/stand-ins/embedded-stack";
import { getRequestLog, resetRequestCounts } from "../support/stand-ins/stand-in/harness-client";
import { cognitoConfigOf } from "../support/stand-in-config";
import { makeTempDir } from "../support/temp-dir";
import { ensureBenchDatabase, printTable, runBenchmarkMain } from "./bench-support";
import { busiestWindow } from "../support/busiest-window";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/bench_import";
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 40);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const TARGET_RATIO = 0.9;
const THROTTLE_SLOTS = Number(process.env.BENCH_THROTTLE_SLOTS ?? 400);
const PROGRESS_EVERY_MS = 10_000;

function csvOf(rows: number): Uint8Array {
  const run = randomUUID().slice(0, 8);
  const lines = [
    "email,family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language",
  ];
  for (let index = 0; index < rows; index++)
    lines.push(`bench-${run}-${index}@import.example.jp,山田,花子${index},1990,JP,東京都,design,設計事務所,ja`);
  return new TextEncoder().encode(lines.join("\r\n"));
}

/**
 * The throttle alone, without Cognito: WORKERS throttles (as separate instances would hold) with CONCURRENCY lanes
 * each take THROTTLE_SLOTS slots in total. Shows the limiter's own ratio, apart from what the stand-in can serve.
 */
async function measureThrottleAlone(db: Database): Promise<{ achieved: number; busiest: number }> {
  const throttles = Array.from({ length: WORKERS }, () => createThrottle(db, "bench.throttle-alone", RATE));
  const times: number[] = [];
  let left = THROTTLE_SLOTS;
  const lane = async (throttle: Throttle) => {
    while (left-- > 0) {
      await throttle.takeSlot();
      times.push(performance.now());
    }
  };
  await Promise.all(throttles.flatMap((throttle) => Array.from({ length: CONCURRENCY }, () => lane(throttle))));
  times.sort((a, b) => a - b);
  return {
    achieved: (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000),
    busiest: busiestWindow(times, 1000),
  };
}

await runBenchmarkMain(async () => {
  const temp = makeTempDir("bench-import");
  const stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  // A fresh database each run: the job table and the throttle start empty.
  await ensureBenchDatabase(DATABASE_URL, { fresh: true });
  const database = openDatabase({ databaseUrl: DATABASE_URL, dataDir: temp.dir });
  const workers: { stop(): Promise<void> }[] = [];
  try {
    await database.migrate();
    const { db } = database;
    const alone = await measureThrottleAlone(db);
    const staff = { sub: randomUUID(), email: "bench@import.example.jp" };

    const bytes = csvOf(ROWS);
    const dryRunStarted = performance.now();
    const validation = await validateImport(
      { db },
      { bytes, fileName: "bench.csv", actor: staff, requestId: "bench", store: true },
    );
    const dryRunMs = performance.now() - dryRunStarted;
    if (validation.kind !== "clean" || !validation.jobId) throw new Error("the bench file did not validate");
    const jobId = validation.jobId;

    const endpoint = stack.env.COGNITO_ENDPOINT!;
    await resetRequestCounts(endpoint);
    await startImportJob({ db }, { jobId, actor: staff, requestId: "bench", creationsPerSecond: RATE });
    const cognito = cognitoConfigOf(stack);
    for (let index = 0; index < WORKERS; index++) {
      const client = createCognitoClient(cognito, { maxAttempts: 1 });
      workers.push(
        startImportWorker(
          { db, identity: createDomainIdentity(cognito, db, systemClock, client) },
          { creationsPerSecond: RATE, concurrency: CONCURRENCY, idlePollMs: 200 },
        ),
      );
    }
    console.log(`Importing ${ROWS} rows at ${RATE}/s with ${WORKERS} workers × ${CONCURRENCY} in flight…`);
    let lastReport = performance.now();
    for (;;) {
      const progress = await getImportJobProgress(db, jobId);
      if (progress?.state === "completed") break;
      if (performance.now() - lastReport > PROGRESS_EVERY_MS) {
        lastReport = performance.now();
        console.log(`  ${progress?.done}/${ROWS} done, ${progress?.achievedPerSecond?.toFixed(1)}/s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const progress = (await getImportJobProgress(db, jobId))!;
    const times = (await getRequestLog(endpoint))
      .filter((request) => request.operation === "AdminCreateUser")
      .map((request) => request.at)
      .sort((a, b) => a - b);
    const spanS = (times.at(-1)! - times[0]!) / 1000;
    // n calls span n-1 spacings: the rate the throttle kept between the first call and the last.
    const achieved = (times.length - 1) / spanS;
    const perThousand: string[][] = [];
    for (let start = 0; start + 1000 <= times.length; start += 1000) {
      const end = Math.min(start + 999, times.length - 1);
      const rate = (end - start) / ((times[end]! - times[start]!) / 1000);
      perThousand.push([`${start + 1}–${end + 1}`, rate.toFixed(2), (rate / RATE).toFixed(3)]);
    }

    console.log("");
    printTable(
      ["measure", "value"],
      [
        ["rows", String(ROWS)],
        ["dry run + store (ms)", dryRunMs.toFixed(0)],
        ["created / failed", `${progress.counts.created} / ${progress.counts.failed}`],
        ["AdminCreateUser calls", String(times.length)],
        ["first to last call (s)", spanS.toFixed(1)],
        ["configured rate (/s)", String(RATE)],
        ["achieved rate (/s)", achieved.toFixed(2)],
        ["achieved ÷ configured", `${(achieved / RATE).toFixed(3)} (target ≥ ${TARGET_RATIO}, ≤ 1.0)`],
        ["busiest 1 s window (calls)", String(busiestWindow(times, 1000))],
        [`throttle alone: ${THROTTLE_SLOTS} slots (/s)`, alone.achieved.toFixed(2)],
        ["throttle alone ÷ configured", (alone.achieved / RATE).toFixed(3)],
        ["throttle alone: busiest 1 s", String(alone.busiest)],
      ],
    );
    console.log("");
    printTable(["calls", "rate (/s)", "÷ configured"], perThousand);
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
    await database.close();
    await stack.stop();
    temp.remove();
  }
});
