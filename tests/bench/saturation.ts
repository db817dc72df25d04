/**
 * Saturation benchmark (`npm run bench:saturation`; BENCH_SECONDS=n per run, default 10; BENCH_ROUNDS=n, default 3;
 * BENCH_CONNECTIONS=n, default 100; BENCH_STEADY_SECONDS=n of load on every URL before the first round, default 20;
 * BENCH_PAUSE_SECONDS=n between a URL's warm-up and its measured run, default 2;
 * DATABASE_URL=postgres://… runs our server on that PostgreSQL, else PGlite; BENCH_BASELINE=<git ref> also builds
 * that commit and measures its pages in the same rounds).
 *
 * Our anonymous pages and the minimal React Router page (tests/bench/minimal-app), each served by its own process,
 * under more connections than the server can answer at once, in alternating rounds (ABBA, as page-throughput.ts).
 * A saturated server queues requests; what matters here is the tail: p99 (beside p90, which shows whether the
 * tail is one delayed group of requests or a spread), the slowest request, and how many took over 2 s, ours
 * against the minimal page's in the same round. Beside them, from our server's metrics port, the event loop's
 * worst delay during the run (prom-client's monitorEventLoopDelay), and from the kernel the listen queue overflows
 * (nstat, the whole machine's), which show connections the server was too slow to accept. And from /proc, what the
 * serving process got of the machine (its CPU time as a share of one core, and per request) and the machine's steal
 * time: a round whose rate falls while the CPU per request stays the same is a round the process got less CPU in.
 *
 * A report, not a test: it exits non-zero only when it cannot measure.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  MEASURE_SECONDS,
  ROUNDS,
  WARMUP_SECONDS,
  type RunningServer,
  assertServesPage,
  buildReactRouterApp,
  checkOutAndBuild,
  ensureAppBuild,
  findFreePort,
  httpGet,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
  startServer,
  tryCpuSecondsOf,
  REPO_ROOT,
} from "./bench-support";

const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 100) || 100);
/** The bound: no request slower than this at saturation. */
const SLOW_MS = 2000;
/** autocannon's own timeout; a request past it is counted as a timeout and its connection made again. */
const TIMEOUT_SECONDS = 10;
/**
 * Load on every URL before the first round (BENCH_STEADY_SECONDS), so that the rounds compare the servers in their
 * steady state: a freshly started server serves far fewer requests/s in its first seconds under load, while its
 * compiler is still optimising the code a view runs, and ours takes longer to get there than the minimal page.
 */
const STEADY_SECONDS = Math.max(0, Number(process.env.BENCH_STEADY_SECONDS ?? 20) || 0);
/**
 * A pause between a URL's warm-up and its measured run (BENCH_PAUSE_SECONDS). When one autocannon run ends, its
 * 100 connections close with their requests unanswered, and a server still works on those requests while the next
 * run's connections arrive: the first second of a measured run would measure the end of the warm-up. The minimal
 * page's server, without a queue, answers every abandoned request, and that first second held all of its slowest
 * requests (tests/bench/README.md, "The previous run's requests").
 */
const PAUSE_SECONDS = Math.max(0, Number(process.env.BENCH_PAUSE_SECONDS ?? 2) || 0);

interface Tracker extends PromiseLike<SaturationRun> {
  on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
interface SaturationRun {
  requests: { mean: number; total: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  timeout: number;
  headers: Record<string, string>;
}) => Tracker;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface Result extends SaturationRun {
  slow: number;
  loopDelayMaxMs?: number;
  listenOverflows?: number;
  /** The serving process's CPU time during the run, as a share of one core, and per request answered. */
  cpuShare?: number;
  cpuMsPerRequest?: number;
  /** The machine's steal time during the run, as a share of all its cores' time (what its host gave others). */
  stealShare?: number;
}

/** The machine's total and stolen CPU time so far, in clock ticks, from /proc/stat (Linux; undefined elsewhere). */
function machineCpuTicks(): { total: number; steal: number } | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
    // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"; guest time is already in user.
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: ticks.reduce((sum, tick) => sum + tick, 0), steal: ticks[7] ?? 0 };
  } catch {
    return undefined;
  }
}

/** The kernel's count of connections dropped because a listen queue was full (all sockets of the machine). */
function listenOverflows(): number | undefined {
  try {
    const out = execFileSync("nstat", ["-az", "TcpExtListenOverflows"], { encoding: "utf8" });
    const match = /TcpExtListenOverflows\s+(\d+)/.exec(out);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The worst event-loop delay since the last scrape: prom-client resets its histogram at every collection. */
async function eventLoopDelayMaxMs(metricsOrigin: string | undefined): Promise<number | undefined> {
  if (!metricsOrigin) return undefined;
  const { body } = await httpGet(`${metricsOrigin}/metrics`);
  const match = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(body.toString("utf8"));
  return match ? Number(match[1]) * 1000 : undefined;
}

async function run(target: Target, seconds: number): Promise<Result> {
  const { metricsOrigin } = target;
  await eventLoopDelayMaxMs(metricsOrigin);
  const overflowsBefore = listenOverflows();
  const machineBefore = machineCpuTicks();
  const cpuBefore = tryCpuSecondsOf(target.server.child.pid);
  const startedAt = performance.now();
  let slow = 0;
  const tracker = autocannon({
    url: target.server.origin + target.pagePath,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: TIMEOUT_SECONDS,
    headers: { "accept-encoding": "gzip" },
  });
  tracker.on("response", (_client, _status, _bytes, ms) => {
    if (ms > SLOW_MS) slow++;
  });
  const result = await tracker;
  const elapsedSeconds = (performance.now() - startedAt) / 1000;
  const cpuAfter = tryCpuSecondsOf(target.server.child.pid);
  const machineAfter = machineCpuTicks();
  const overflowsAfter = listenOverflows();
  const cpuSeconds = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return {
    ...result,
    slow: slow + result.timeouts,
    loopDelayMaxMs: await eventLoopDelayMaxMs(metricsOrigin),
    listenOverflows:
      overflowsBefore === undefined || overflowsAfter === undefined ? undefined : overflowsAfter - overflowsBefore,
    cpuShare: cpuSeconds === undefined ? undefined : cpuSeconds / elapsedSeconds,
    cpuMsPerRequest:
      cpuSeconds === undefined || result.requests.total === 0 ? undefined : (cpuSeconds * 1000) / result.requests.total,
    stealShare:
      machineBefore === undefined || machineAfter === undefined || machineAfter.total === machineBefore.total
        ? undefined
        : (machineAfter.steal - machineBefore.steal) / (machineAfter.total - machineBefore.total),
  };
}

interface Target {
  label: string;
  server: RunningServer;
  pagePath: string;
  metricsOrigin?: string;
}

async function runBenchmark() {
  await ensureAppBuild();
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);
  const metricsPort = await findFreePort();
  const app = await startPreviewServer({ METRICS_PORT: String(metricsPort) });
  const minimal = await startServer({
    name: "the minimal app",
    script: path.relative(REPO_ROOT, path.join(MINIMAL_APP_DIR, "server.ts")),
    args: [],
    port: await findFreePort(),
    env: {},
    readyPath: "/",
  });
  const metricsOrigin = `http://127.0.0.1:${metricsPort}`;
  const targets: Target[] = [
    { label: "our /", server: app, pagePath: "/", metricsOrigin },
    { label: "minimal /", server: minimal, pagePath: "/" },
    { label: "our /en/", server: app, pagePath: "/en/", metricsOrigin },
  ];
  const baselineRef = process.env.BENCH_BASELINE;
  if (baselineRef) {
    const checkout = await checkOutAndBuild(baselineRef);
    const baseMetricsPort = await findFreePort();
    const base = await startPreviewServer(
      { METRICS_PORT: String(baseMetricsPort) },
      { name: "the baseline server", dir: checkout.dir },
    );
    const baseMetrics = `http://127.0.0.1:${baseMetricsPort}`;
    console.log(`base = ${checkout.commit} (BENCH_BASELINE)`);
    targets.push(
      { label: "base /", server: base, pagePath: "/", metricsOrigin: baseMetrics },
      { label: "base /en/", server: base, pagePath: "/en/", metricsOrigin: baseMetrics },
    );
  }
  for (const target of targets) await assertServesPage(target.server, target.pagePath);

  console.log(
    `\nSaturation on Node ${process.versions.node}, ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}: ` +
      `${CONNECTIONS} connections, ${ROUNDS} rounds of ${MEASURE_SECONDS} s per URL (warm-up ${WARMUP_SECONDS} s; ` +
      `${STEADY_SECONDS} s per URL before the first round; ${PAUSE_SECONDS} s pause before each measured run)`,
  );
  if (STEADY_SECONDS > 0) {
    for (const target of targets) await run(target, STEADY_SECONDS);
  }
  const rows: string[][] = [];
  const results = new Map<string, Result[]>(targets.map((target) => [target.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      await run(target, WARMUP_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, PAUSE_SECONDS * 1000));
      const result = await run(target, MEASURE_SECONDS);
      results.get(target.label)!.push(result);
      rows.push([
        `${round + 1}`,
        target.label,
        result.requests.mean.toFixed(0),
        result.latency.p50.toFixed(0),
        result.latency.p90.toFixed(0),
        result.latency.p99.toFixed(0),
        result.latency.max.toFixed(0),
        String(result.slow),
        String(result.non2xx + result.errors),
        result.loopDelayMaxMs === undefined ? "-" : result.loopDelayMaxMs.toFixed(0),
        result.listenOverflows === undefined ? "-" : String(result.listenOverflows),
        result.cpuShare === undefined ? "-" : `${(result.cpuShare * 100).toFixed(0)}`,
        result.cpuMsPerRequest === undefined ? "-" : result.cpuMsPerRequest.toFixed(2),
        result.stealShare === undefined ? "-" : `${(result.stealShare * 100).toFixed(1)}`,
      ]);
    }
  }
  console.log();
  printTable(
    [
      "round",
      "URL",
      "req/s",
      "p50 ms",
      "p90 ms",
      "p99 ms",
      "max ms",
      `>${SLOW_MS / 1000} s`,
      "failed",
      "loop max ms",
      "overflows",
      "cpu %",
      "cpu ms/req",
      "steal %",
    ],
    rows,
  );
  console.log();
  const minimalRuns = results.get("minimal /")!;
  for (const [label, runs] of results) {
    if (label === "minimal /") continue;
    const ratios = runs.map((result, round) => (result.latency.p99 / minimalRuns[round]!.latency.p99).toFixed(2));
    const worst = Math.max(...runs.map((result) => result.latency.max));
    const slow = runs.reduce((total, result) => total + result.slow, 0);
    console.log(
      `${label}: p99 ${ratios.join(", ")}× the minimal page's (round by round; target ≤ 2×), slowest ${worst} ms, ` +
        `${slow} over ${SLOW_MS / 1000} s (target 0)`,
    );
  }
}

await runBenchmarkMain(runBenchmark);
