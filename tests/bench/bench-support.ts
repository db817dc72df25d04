/**
 * What the benchmark scripts (tests/bench/*.ts) share: building the app only when its sources changed, starting
 * servers on free loopback ports with their logs discarded, autocannon runs, tables, and cleanups that stop every
 * server and remove every temporary directory whether a run succeeds, fails or is interrupted.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { spawnNodeScript } from "../support/node-child";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const HOST = "127.0.0.1";

export const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const WARMUP_SECONDS = 2;
/** Alternating rounds: a machine that gets busier or quieter during the run then affects every URL alike. */
export const ROUNDS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 3)) || 1);
export const CONNECTIONS = 10;
/** Our server's grace period for in-flight requests is 10 s; past this it is stuck, not shutting down. */
const STOP_TIMEOUT_MS = 15_000;
/** Generous: CI runs on 2 cores that may be busy with other test processes, where a start can take over a minute. */
const START_TIMEOUT_MS = 180_000;

/**
 * Everything whose change alters the app's build: sources, bundled translations, copied public files, build
 * configuration and dependencies. The app is rebuilt only when one of them is newer than the build, because other
 * work may be serving the existing build right now and a rebuild replaces its fingerprinted assets.
 */
const APP_BUILD_INPUTS = [
  "app",
  "db",
  "locales",
  "public",
  "react-router.config.ts",
  "vite.config.ts",
  "package-lock.json",
];
/** `npm run build` writes the compiled server after React Router's build. */
const APP_BUILD_OUTPUT = path.join(REPO_ROOT, "build/http-server/main.js");

/** autocannon ships no types: this describes the part of its programmatic API used here. */
export interface AutocannonResult {
  requests: { mean: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** An autocannon run, with the server's CPU time per answered request when the server's process was given. */
export interface ThroughputResult extends AutocannonResult {
  /** Milliseconds of CPU (every thread of the server process, user and system) per request; NaN off Linux. */
  cpuMsPerRequest: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => PromiseLike<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

export interface RunningServer {
  name: string;
  origin: string;
  child: ChildProcess;
  stderrTail: () => string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Cleanups run in reverse order of registration, once, whether the run succeeds, fails or is interrupted. */
const cleanups: Array<() => void | Promise<void>> = [];

async function runCleanups() {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error("cleanup failed:", error);
    }
  }
}

/**
 * Runs a benchmark: a report, not a test. It exits non-zero only when it cannot measure (build failure, a server
 * that does not start, a page that is not what was meant), never because a number is bad.
 */
export async function runBenchmarkMain(run: () => Promise<void>) {
  // Ctrl-C must still stop the servers and remove the data directories.
  process.once("SIGINT", () => void runCleanups().then(() => process.exit(130)));
  try {
    await run();
  } catch (error) {
    console.error(`\nBenchmark aborted: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    await runCleanups();
  }
}

/** Runs `cleanup` when the benchmark ends, however it ends (after the cleanups registered later). */
export function addCleanup(cleanup: () => void | Promise<void>) {
  cleanups.push(cleanup);
}

export function makeTempDir(label: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `member-account-bench-${label}-`));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function newestModificationTime(entry: string): number {
  const stats = statSync(entry, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(
    stats.mtimeMs,
    ...readdirSync(entry, { recursive: true, encoding: "utf8" }).map(
      (child) => statSync(path.join(entry, child)).mtimeMs,
    ),
  );
}

function isAppBuildStale(): boolean {
  const builtAt = statSync(APP_BUILD_OUTPUT, { throwIfNoEntry: false })?.mtimeMs;
  if (builtAt === undefined) return true;
  return APP_BUILD_INPUTS.some((input) => newestModificationTime(path.join(REPO_ROOT, input)) > builtAt);
}

/** Runs `npx react-router build` (or another build command) in `cwd`, showing its output only when it fails. */
export async function buildReactRouterApp(name: string, cwd: string, command = ["npx", "react-router", "build"]) {
  console.log(`Building ${name}…`);
  const child = spawn(command[0]!, command.slice(1), { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (code !== 0) throw new Error(`Building ${name} failed (exit code ${code}):\n${output}`);
}

/** Builds the app only when its build is older than its sources. */
export async function ensureAppBuild() {
  if (isAppBuildStale()) await buildReactRouterApp("the app", REPO_ROOT, ["npm", "run", "build"]);
  else console.log("The app's build is newer than its sources; using it.");
}

/**
 * Another commit of this repository, checked out into a temporary directory (git archive: the repository and its
 * worktrees stay as they are) with this checkout's node_modules, and built. Returns the directory and the commit's
 * short hash and subject, for the report.
 */
export async function checkOutAndBuild(ref: string): Promise<{ dir: string; commit: string }> {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" }).trim();
  const commit = git("log", "-1", "--format=%h %s", ref);
  const dir = makeTempDir("checkout");
  execFileSync("sh", ["-c", 'git archive "$1" | tar -x -C "$2"', "sh", ref, dir], { cwd: REPO_ROOT });
  symlinkSync(realpathSync(path.join(REPO_ROOT, "node_modules")), path.join(dir, "node_modules"));
  await buildReactRouterApp(`the app at ${commit}`, dir, ["npm", "run", "build"]);
  return { dir, commit };
}

export async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A request with exactly the given headers (fetch would add Accept-Language, which changes our `/`). */
export function httpRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

export function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return httpRequest(url, { headers });
}

async function stopServer(server: RunningServer) {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    console.error(`${server.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing it.`);
    child.kill("SIGKILL");
  }, STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

const withoutUnset = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));

/**
 * Starts a Node server process with stdout discarded (our server logs every request there, and writing the
 * logs is part of its real cost, but reading them here would steal CPU from the load generator) and waits until
 * `readyPath` answers 200.
 */
export async function startServer(options: {
  name: string;
  script: string;
  args: string[];
  port: number;
  /** Added to this process's environment; a variable given as undefined is removed. */
  env: Record<string, string | undefined>;
  readyPath: string;
  /** The checkout the script and its build are in; this one by default. */
  cwd?: string;
  /** Node options before the script's own preloads, such as another `--import`. */
  nodeArgs?: string[];
}): Promise<RunningServer> {
  // BENCH_CPU_PROF=dir: each server writes a V8 CPU profile of its whole life into dir/<server name>/ when it stops.
  const profileDir = process.env.BENCH_CPU_PROF
    ? path.resolve(process.env.BENCH_CPU_PROF, options.name.replace(/[^\w-]+/g, "-"))
    : undefined;
  const profileArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  // Tied to this process: a benchmark killed with SIGKILL (no cleanups run) leaves no server behind.
  const child = spawnNodeScript(options.script, options.args, {
    nodeArgs: [...profileArgs, ...(options.nodeArgs ?? [])],
    cwd: options.cwd ?? REPO_ROOT,
    env: withoutUnset({ ...process.env, NODE_ENV: "production", PORT: String(options.port), HOST, ...options.env }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const server: RunningServer = {
    name: options.name,
    origin: `http://${HOST}:${options.port}`,
    child,
    stderrTail: () => stderr,
  };
  cleanups.push(() => stopServer(server));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited before it was ready (${child.exitCode ?? child.signalCode}):\n${stderr}`);
    }
    const ready = await httpGet(server.origin + options.readyPath).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return server;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${options.name} was not ready within ${START_TIMEOUT_MS / 1000} s:\n${stderr}`);
}

/**
 * Our production server in preview mode (embedded stand-in, PGlite and SMTP capture) on a fresh data directory:
 * this checkout's, or another's (`checkout`, see checkOutAndBuild) under its own name, with `nodeArgs` if given.
 */
export async function startPreviewServer(
  env: Record<string, string | undefined> = {},
  checkout: { name: string; dir: string } = { name: "our server", dir: REPO_ROOT },
  nodeArgs: string[] = [],
): Promise<RunningServer> {
  const port = await findFreePort();
  return startServer({
    name: checkout.name,
    cwd: checkout.dir,
    script: "app/server/dev-entry.ts",
    args: ["--mode=preview"],
    nodeArgs,
    port,
    env: {
      APP_ORIGIN: `http://${HOST}:${port}`,
      DATA_DIR: makeTempDir("data"),
      LOG_LEVEL: "info",
      // The benchmarks count Cognito calls: no scheduled reconcile (the directory's, the second factors') adding its own.
      DIRECTORY_RECONCILE_INTERVAL_MINUTES: "0",
      FACTOR_RECONCILE_INTERVAL_MINUTES: "0",
      ...env,
    },
    readyPath: "/healthz/",
  });
}

/** Refuses to benchmark a redirect or an error page: the numbers would not describe the page we mean. */
export async function assertServesPage(server: RunningServer, pagePath: string, headers: Record<string, string> = {}) {
  const response = await httpGet(server.origin + pagePath, headers);
  if (response.status !== 200) {
    const location = response.headers.location ? ` to ${response.headers.location}` : "";
    throw new Error(
      `${server.name} answered ${pagePath} with ${response.status}${location} instead of 200; ` +
        `benchmarking it would measure that response, not the page.\n${server.stderrTail()}`,
    );
  }
  return response;
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The CPU time a process has used so far (user and system, all its threads), in seconds, from /proc (Linux; the
 * kernel reports it in USER_HZ, 100 per second on every Linux architecture). Undefined elsewhere.
 */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  const stat = pid === undefined ? undefined : readFileSync(`/proc/${pid}/stat`, { encoding: "utf8", flag: "r" });
  if (!stat) return undefined;
  // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

export function tryCpuSecondsOf(pid: number | undefined): number | undefined {
  try {
    return cpuSecondsOf(pid);
  } catch {
    return undefined;
  }
}

/**
 * A warm-up, then a fixed-length autocannon run against one URL; gzip accepted, as browsers do. `warmup: false`
 * skips the warm-up, for a further run against a server that was already warmed up. Given the `server`, the result
 * also says how much CPU its process spent per request during the run (warm-up excluded): unlike requests/s, that
 * hardly depends on what else the machine is doing.
 */
export async function measureThroughput(
  url: string,
  headers: Record<string, string> = {},
  options: { warmup?: boolean; server?: RunningServer } = {},
): Promise<ThroughputResult> {
  // Browsers always ask for compressed pages, and compressing them is part of the server's cost.
  const run = (duration: number) =>
    autocannon({ url, connections: CONNECTIONS, duration, headers: { "accept-encoding": "gzip", ...headers } });
  if (options.warmup !== false) await run(WARMUP_SECONDS);
  const cpuBefore = tryCpuSecondsOf(options.server?.child.pid);
  const result = await run(MEASURE_SECONDS);
  const cpuAfter = tryCpuSecondsOf(options.server?.child.pid);
  const cpuMsPerRequest =
    cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
      ? Number.NaN
      : ((cpuAfter - cpuBefore) * 1000) / result.requests.total;
  return { ...result, cpuMsPerRequest };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Equal-length rounds as one result: the mean rate and CPU per request, the median latencies, every failure counted. */
export function combineRounds(runs: ThroughputResult[]): ThroughputResult {
  const sum = (pick: (run: ThroughputResult) => number) => runs.reduce((total, run) => total + pick(run), 0);
  return {
    requests: { mean: sum((run) => run.requests.mean) / runs.length, total: sum((run) => run.requests.total) },
    latency: { p50: median(runs.map((run) => run.latency.p50)), p99: median(runs.map((run) => run.latency.p99)) },
    non2xx: sum((run) => run.non2xx),
    errors: sum((run) => run.errors),
    timeouts: sum((run) => run.timeouts),
    cpuMsPerRequest: sum((run) => run.cpuMsPerRequest) / runs.length,
  };
}

export const percent = (fraction: number) => `${(fraction * 100).toFixed(0)}%`;

/** One table row for a throughput result: label, req/s, p50, p99, CPU ms per request, non-2xx, errors. */
export function throughputRow(label: string, result: ThroughputResult): string[] {
  return [
    label,
    result.requests.mean.toFixed(0),
    result.latency.p50.toFixed(1),
    result.latency.p99.toFixed(1),
    Number.isNaN(result.cpuMsPerRequest) ? "-" : result.cpuMsPerRequest.toFixed(2),
    String(result.non2xx),
    String(result.errors + result.timeouts),
  ];
}

export const THROUGHPUT_HEADER = ["URL", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "non-2xx", "errors"];

export function printTable(header: string[], rows: string[][]) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  // The first column is text and reads best left-aligned; the rest are numbers.
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ");
  console.log(format(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(format(row));
}

/**
 * Makes the benchmark's database on its PostgreSQL server: kept when it exists (a bench whose seed is expensive
 * reuses it), or dropped and made again when `fresh` (a bench that must start from empty tables).
 */
export async function ensureBenchDatabase(url: string, options: { fresh: boolean }): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const quotedName = `"${name.replaceAll('"', '""')}"`;
  const maintenanceUrl = new URL(url);
  maintenanceUrl.pathname = "/postgres";
  const maintenance = postgres(maintenanceUrl.toString(), { max: 1, onnotice: () => {} });
  try {
    if (options.fresh) await maintenance.unsafe(`drop database if exists ${quotedName} with (force)`);
    const [existing] = await maintenance`select 1 from pg_database where datname = ${name}`;
    if (!existing) await maintenance.unsafe(`create database ${quotedName}`);
  } finally {
    await maintenance.end();
  }
}
