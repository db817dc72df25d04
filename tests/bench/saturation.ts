/**
 * Saturation benchmark (`npm run bench:saturation`, on Node 24 like production; BENCH_SECONDS=n per run, default 10;
 * BENCH_ROUNDS=n, default 3; BENCH_CONNECTIONS=n, default 100; BENCH_STEADY_SECONDS=n of load on every URL before the
 * first round, default 20; BENCH_PAUSE_SECONDS=n between a URL's warm-up and its measured run, default 2;
 * DATABASE_URL=postgres://… runs the servers on that PostgreSQL, else PGlite; BENCH_BASELINE=<git ref> also builds
 * that commit and measures its pages in the same rounds).
 *
 * The pages of page-throughput.ts (MEASURED_PAGES: signed-in /my/profile/, /my/security/, /, the anonymous /) and the
 * minimal React Router page, each server its own process, under more connections than a server answers at once, in
 * alternating rounds (ABBA). What matters is the tail, ours against the minimal page's in the same round: p99 (beside
 * p90, which tells one delayed group from a spread), the slowest request, how many took over 2 s, and how many our
 * load shedding answered 503 (app/server/README.md). Beside them: the event loop's worst delay (our metrics port),
 * the kernel's listen queue overflows (nstat, the whole machine's), the serving process's CPU share and CPU per
 * request, and the machine's steal time: a round whose rate falls while the CPU per request stays is a round the
 * process got less CPU in.
 *
 * A report, not a test: it exits non-zero only when it cannot measure.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  MEASURE_SECONDS,
  ROUNDS,
  WARMUP_SECONDS,
  httpGet,
  printTable,
  runBenchmarkMain,
  tryCpuSecondsOf,
} from "./bench-support";
import {
  MINIMAL,
  type MeasuredTarget,
  databaseLabel,
  measuredTargets,
  startMeasuredApps,
  startMinimalApp,
} from "./measured-app";
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 100) || 100);
/** A request slower than this at saturation is counted apart. */
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
 * run's connections arrive: the first second of a measured run would measure the end of the warm-up.
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
  /** Answered 503 by the server's load shedding (Retry-After): refused at once rather than kept waiting. */
  shed: number;
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
  let shed = 0;
  const tracker = autocannon({
    url: target.server.origin + target.pagePath,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: TIMEOUT_SECONDS,
    headers: { "accept-encoding": "gzip", ...target.headers },
  });
  tracker.on("response", (_client, status, _bytes, ms) => {
    if (status === 503) shed++;
    else if (ms > SLOW_MS) slow++;
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
    shed,
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

type Target = MeasuredTarget;

async function runBenchmark() {
  const apps = await startMeasuredApps({ metrics: true });
  const minimal = await startMinimalApp();
  const targets = measuredTargets(apps, minimal);
  for (const app of apps) if (app.commit) console.log(`${app.name} = ${app.commit} (BENCH_BASELINE)`);

  console.log(
    `\nSaturation on Node ${process.versions.node}, ${databaseLabel()}: ` +
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
        String(result.shed),
        String(result.non2xx - result.shed + result.errors),
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
      "503 shed",
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
  const minimalRuns = results.get(MINIMAL)!;
  for (const [label, runs] of results) {
    if (label === MINIMAL) continue;
    const ratios = runs.map((result, round) => (result.latency.p99 / minimalRuns[round]!.latency.p99).toFixed(2));
    const worst = Math.max(...runs.map((result) => result.latency.max));
    const slow = runs.reduce((total, result) => total + result.slow, 0);
    const shed = runs.reduce((total, result) => total + result.shed, 0);
    console.log(
      `${label}: p99 ${ratios.join(", ")}× the minimal page's (round by round), slowest ${worst} ms, ` +
        `${slow} over ${SLOW_MS / 1000} s, ${shed} shed with 503`,
    );
  }
}

await runBenchmarkMain(runBenchmark);
