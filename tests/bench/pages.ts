/**
 * Page benchmark (`npm run bench`, on Node 24 like production; BENCH_SECONDS=n each measurement's length, default 10;
 * BENCH_ROUNDS=n alternating rounds, default 3; BENCH_CPU_PROF=dir writes each server's CPU profile; DATABASE_URL
 * runs the servers on that PostgreSQL; BENCH_BASELINE=<git ref> also builds and measures that commit).
 *
 * What it measures:
 *  1. Server throughput and CPU per view of the signed-in /my/profile/, /my/security/ and /, and the anonymous /,
 *     each against the minimal React Router page in the same rounds (page-throughput.ts says how to read them).
 *  2. The JavaScript every page makes the browser load, in both languages, signed out, signed in and as staff,
 *     against the budget (page-weight.ts, in Chromium on a preview server of its own).
 *
 * A report, not a test: it exits non-zero only when it cannot measure, never because a number is bad.
 */
import { runBenchmarkMain } from "./bench-support";
import { startMeasuredApps, startMinimalApp } from "./measured-app";
import { measurePageThroughput } from "./page-throughput";
import { reportPageJavaScript } from "./page-weight";

await runBenchmarkMain(async () => {
  const apps = await startMeasuredApps({ metrics: false });
  const minimal = await startMinimalApp();
  await measurePageThroughput(apps, minimal);
  await reportPageJavaScript({ minimalOrigin: minimal.origin });
});
