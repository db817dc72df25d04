/**
 * Home page benchmark (`npm run bench`; BENCH_SECONDS=n shortens or lengthens each measurement, default 10).
 *
 * What it measures:
 *  1. Server throughput and latency of our production server (preview mode: the real HTTP layer with its
 *     security headers, compression and one access log line per request, the logs sent to /dev/null) for `/`
 *     and `/en/`, next to the smallest server-rendered React Router page served by the same stack
 *     (tests/bench/minimal-app). Each URL gets a warm-up, then a fixed-length run with autocannon over loopback.
 *  2. The JavaScript the home page makes the browser load: every script and modulepreload it references, each
 *     gzipped, plus its inline scripts gzipped together (loader data included), against the 120 kB budget.
 *
 * How to read it:
 *  - "req/s" is the mean of autocannon's per-second request counts; p50/p99 are response latencies in ms.
 *    Absolute numbers depend on the machine (and autocannon shares its CPUs with the server); the ratio to the
 *    minimal page is the number to compare across machines and commits: 100% would mean our page costs no more
 *    than React Router itself, so the missing part is what our middleware, loaders, i18n and markup cost.
 *  - "non-2xx" and "errors" should be 0; anything else means the numbers describe error pages, not the home page.
 *  - The JavaScript sizes are gzip level 9, a little smaller than what compression() (level 6) sends; kB = 1000 B.
 *    The minimal page's total is printed too: that much of the budget is React and React Router alone.
 *
 * It is a report, not a test: it exits non-zero only when it cannot measure (build failure, a server that does
 * not start, a page that is not 200), never because a number is bad.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");
const HOST = "127.0.0.1";

const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = 2;
const CONNECTIONS = 10;
const JAVASCRIPT_BUDGET_KB = 120;
/** Our server's grace period for in-flight requests is 10 s; past this it is stuck, not shutting down. */
const STOP_TIMEOUT_MS = 15_000;
const START_TIMEOUT_MS = 60_000;

/**
 * Everything whose change alters the app's build: sources, bundled translations, copied public files, build
 * configuration and dependencies. The app is rebuilt only when one of them is newer than the build, because other
 * work may be serving the existing build right now and a rebuild replaces its fingerprinted assets.
 */
const APP_BUILD_INPUTS = ["app", "locales", "public", "react-router.config.ts", "vite.config.ts", "package-lock.json"];
const APP_BUILD_OUTPUT = path.join(REPO_ROOT, "build/server/index.js");

/** autocannon ships no types: this describes the part of its programmatic API used here. */
interface AutocannonResult {
  requests: { mean: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
  warmup: { connections: number; duration: number };
}) => PromiseLike<AutocannonResult>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface RunningServer {
  name: string;
  origin: string;
  child: ChildProcess;
  stderrTail: () => string;
}

interface HttpResponse {
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

function makeTempDir(label: string): string {
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
    ...readdirSync(entry, { recursive: true, encoding: "utf8" }).map((child) => statSync(path.join(entry, child)).mtimeMs),
  );
}

function isAppBuildStale(): boolean {
  const builtAt = statSync(APP_BUILD_OUTPUT, { throwIfNoEntry: false })?.mtimeMs;
  if (builtAt === undefined) return true;
  return APP_BUILD_INPUTS.some((input) => newestModificationTime(path.join(REPO_ROOT, input)) > builtAt);
}

/** Runs `npx react-router build` in `cwd`, showing its output only when it fails. */
async function buildReactRouterApp(name: string, cwd: string) {
  console.log(`Building ${name}…`);
  const child = spawn("npx", ["react-router", "build"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (code !== 0) throw new Error(`Building ${name} failed (exit code ${code}):\n${output}`);
}

async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A plain GET with exactly the given headers (fetch would add Accept-Language, which changes our `/`). */
function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
  });
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

/**
 * Starts a Node server process with stdout discarded (our server logs every request there, and writing the
 * logs is part of its real cost, but reading them here would steal CPU from autocannon) and waits until
 * `readyPath` answers 200.
 */
async function startServer(options: {
  name: string;
  script: string;
  args: string[];
  port: number;
  env: Record<string, string>;
  readyPath: string;
}): Promise<RunningServer> {
  const child = spawn(process.execPath, ["--import", "tsx", options.script, ...options.args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: String(options.port), HOST, ...options.env },
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

/** Refuses to benchmark a redirect or an error page: the numbers would not describe the page we mean. */
async function assertServesPage(server: RunningServer, pagePath: string) {
  const response = await httpGet(server.origin + pagePath);
  if (response.status !== 200) {
    const location = response.headers.location ? ` to ${response.headers.location}` : "";
    throw new Error(
      `${server.name} answered ${pagePath} with ${response.status}${location} instead of 200; ` +
        `benchmarking it would measure that response, not the page.\n${server.stderrTail()}`,
    );
  }
}

async function measureThroughput(url: string): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: MEASURE_SECONDS,
    // Browsers always ask for compressed pages, and compressing them is part of the server's cost.
    headers: { "accept-encoding": "gzip" },
    warmup: { connections: CONNECTIONS, duration: WARMUP_SECONDS },
  });
}

interface ScriptSize {
  label: string;
  bytes: number;
  gzipBytes: number;
}

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of tag.matchAll(/([\w:-]+)(?:\s*=\s*"([^"]*)")?/g)) {
    if (name) attributes.set(name.toLowerCase(), (value ?? "").replaceAll("&amp;", "&"));
  }
  return attributes;
}

/** Every script the page makes the browser load: external scripts and module preloads once each, and inline scripts. */
async function measurePageJavaScript(pageUrl: string): Promise<ScriptSize[]> {
  const page = await httpGet(pageUrl);
  if (page.status !== 200) throw new Error(`${pageUrl} answered ${page.status} while collecting its scripts`);
  const html = page.body.toString("utf8");

  const externalUrls = new Set<string>();
  const inlineBodies: string[] = [];
  for (const [, attributeText = "", body = ""] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    const src = attributesOf(attributeText).get("src");
    if (src) externalUrls.add(new URL(src, pageUrl).href);
    else inlineBodies.push(body);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/gi)) {
    const attributes = attributesOf(tag.slice("<link".length));
    const href = attributes.get("href");
    if (href && attributes.get("rel")?.split(/\s+/).includes("modulepreload")) {
      externalUrls.add(new URL(href, pageUrl).href);
    }
  }

  // Inline scripts travel inside the HTML and are compressed with it, so they are gzipped together, not one by one.
  const sizes = [sizeOf(`(${inlineBodies.length} inline scripts)`, Buffer.from(inlineBodies.join("\n")))];
  for (const url of externalUrls) {
    const asset = await httpGet(url);
    if (asset.status !== 200) throw new Error(`${url} answered ${asset.status}`);
    sizes.push(sizeOf(new URL(url).pathname, asset.body));
  }
  return sizes;
}

function sizeOf(label: string, content: Buffer): ScriptSize {
  return { label, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
}

function kilobytes(bytes: number): string {
  return (bytes / 1000).toFixed(1);
}

function printTable(header: string[], rows: string[][]) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  // The first column is text and reads best left-aligned; the rest are numbers.
  const format = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ");
  console.log(format(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(format(row));
}

function totalGzipBytes(sizes: ScriptSize[]): number {
  return sizes.reduce((sum, size) => sum + size.gzipBytes, 0);
}

async function runBenchmark() {
  if (isAppBuildStale()) await buildReactRouterApp("the app", REPO_ROOT);
  else console.log("The app's build is newer than its sources; using it.");
  // The minimal app builds in about two seconds, so it is always rebuilt rather than checked.
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);

  const appPort = await findFreePort();
  const app = await startServer({
    name: "our server",
    script: "app/server/main.ts",
    args: ["--mode=preview"],
    port: appPort,
    env: { APP_ORIGIN: `http://${HOST}:${appPort}`, DATA_DIR: makeTempDir("data"), LOG_LEVEL: "info" },
    readyPath: "/healthz/",
  });
  const minimal = await startServer({
    name: "the minimal app",
    script: path.relative(REPO_ROOT, path.join(MINIMAL_APP_DIR, "server.ts")),
    args: [],
    port: await findFreePort(),
    env: {},
    readyPath: "/",
  });

  const targets = [
    { label: "our /", server: app, pagePath: "/" },
    { label: "our /en/", server: app, pagePath: "/en/" },
    { label: "minimal /", server: minimal, pagePath: "/" },
  ];
  for (const target of targets) await assertServesPage(target.server, target.pagePath);

  console.log(
    `\nThroughput: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${MEASURE_SECONDS} s per URL, gzip accepted`,
  );
  const results = new Map<string, AutocannonResult>();
  for (const target of targets) {
    console.log(`  measuring ${target.label}…`);
    results.set(target.label, await measureThroughput(target.server.origin + target.pagePath));
  }
  console.log();
  printTable(
    ["URL", "req/s", "p50 ms", "p99 ms", "non-2xx", "errors"],
    targets.map(({ label }) => {
      const result = results.get(label)!;
      return [
        label,
        result.requests.mean.toFixed(0),
        result.latency.p50.toFixed(1),
        result.latency.p99.toFixed(1),
        String(result.non2xx),
        String(result.errors + result.timeouts),
      ];
    }),
  );
  const baseline = results.get("minimal /")!.requests.mean;
  console.log();
  for (const label of ["our /", "our /en/"]) {
    const ratio = results.get(label)!.requests.mean / baseline;
    console.log(`${label} throughput = ${(ratio * 100).toFixed(0)}% of the minimal page's (${ratio.toFixed(2)}×)`);
  }

  const homeScripts = await measurePageJavaScript(`${app.origin}/`);
  const minimalScripts = await measurePageJavaScript(`${minimal.origin}/`);
  console.log("\nJavaScript loaded by our / (gzip level 9, kB = 1000 B)\n");
  printTable(
    ["file", "raw kB", "gzip kB"],
    homeScripts.map((size) => [size.label, kilobytes(size.bytes), kilobytes(size.gzipBytes)]),
  );
  const total = totalGzipBytes(homeScripts);
  const verdict = total <= JAVASCRIPT_BUDGET_KB * 1000 ? "within budget" : "OVER budget";
  console.log(`\nTotal: ${kilobytes(total)} kB gzipped of the ${JAVASCRIPT_BUDGET_KB} kB budget: ${verdict}`);
  console.log(`(The minimal page alone loads ${kilobytes(totalGzipBytes(minimalScripts))} kB gzipped.)`);
}

async function main() {
  // Ctrl-C must still stop both servers and remove the data directory.
  process.once("SIGINT", () => void runCleanups().then(() => process.exit(130)));
  try {
    await runBenchmark();
  } catch (error) {
    console.error(`\nBenchmark aborted: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    await runCleanups();
  }
}

await main();
