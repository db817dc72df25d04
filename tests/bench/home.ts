/**
 * Page benchmark (`npm run bench`; BENCH_SECONDS=n sets each measurement's length, default 10; BENCH_ROUNDS=n the
 * number of alternating rounds, default 3; BENCH_CPU_PROF=dir writes each server's CPU profile; DATABASE_URL runs
 * our server on that PostgreSQL; BENCH_BASELINE=<git ref> also builds and measures that commit's pages).
 *
 * What it measures:
 *  1. Server throughput, latency and CPU per request for `/`, `/en/` and the signed-in `/my/profile/` next to a
 *     minimal React Router page, with the ratios the targets are set on (page-throughput.ts says how to read them).
 *     What remix-i18next's middleware alone costs a request, in-process (i18n-middleware.ts).
 *  2. The JavaScript every page makes the browser load, in both languages, signed out, signed in and as staff,
 *     against the budget (tests/bench/page-weight.ts, in Chromium on a preview server of its own).
 *
 * It is a report, not a test: it exits non-zero only when it cannot measure (build failure, a server that does
 * not start, a page that is not 200, failures during a run), never because a number is bad.
 */
import path from "node:path";
import {
  REPO_ROOT,
  buildReactRouterApp,
  checkOutAndBuild,
  ensureAppBuild,
  findFreePort,
  runBenchmarkMain,
  startPreviewServer,
  startServer,
} from "./bench-support";
import { reportI18nMiddlewareCost } from "./i18n-middleware";
import { reportPageJavaScript } from "./page-weight";
import { measurePageThroughput } from "./page-throughput";

const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");

/** Another commit's build, with a stand-in of its own on a known port, so a member can be signed in there too. */
async function startBaseline(ref: string) {
  const checkout = await checkOutAndBuild(ref);
  const standInPort = await findFreePort();
  const server = await startPreviewServer(
    { STANDIN_COGNITO_PORT: String(standInPort) },
    { name: "the baseline server", dir: checkout.dir },
  );
  return { commit: checkout.commit, standInPort, server };
}

async function runBenchmark() {
  await ensureAppBuild();
  // The minimal app builds in about two seconds, so it is always rebuilt rather than checked.
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);

  // A fixed stand-in port, so that the signed-in page's member can be created and Cognito requests counted.
  const standInPort = await findFreePort();
  const app = await startPreviewServer({ STANDIN_COGNITO_PORT: String(standInPort) });
  const minimal = await startServer({
    name: "the minimal app",
    script: path.relative(REPO_ROOT, path.join(MINIMAL_APP_DIR, "server.ts")),
    args: [],
    port: await findFreePort(),
    env: {},
    readyPath: "/",
  });

  const baselineRef = process.env.BENCH_BASELINE;
  const baseline = baselineRef ? await startBaseline(baselineRef) : undefined;

  await measurePageThroughput(app, minimal, standInPort, baseline);
  await reportI18nMiddlewareCost();
  await reportPageJavaScript({ minimalOrigin: minimal.origin });
}

await runBenchmarkMain(runBenchmark);
