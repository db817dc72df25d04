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
import path from "node:path";
import { gzipSync } from "node:zlib";
import {
  CONNECTIONS,
  MEASURE_SECONDS,
  REPO_ROOT,
  THROUGHPUT_HEADER,
  WARMUP_SECONDS,
  type AutocannonResult,
  assertServesPage,
  buildReactRouterApp,
  ensureAppBuild,
  findFreePort,
  httpGet,
  measureThroughput,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
  startServer,
  throughputRow,
} from "./bench-support";

const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");
const JAVASCRIPT_BUDGET_KB = 120;

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

function totalGzipBytes(sizes: ScriptSize[]): number {
  return sizes.reduce((sum, size) => sum + size.gzipBytes, 0);
}

async function runBenchmark() {
  await ensureAppBuild();
  // The minimal app builds in about two seconds, so it is always rebuilt rather than checked.
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);

  const app = await startPreviewServer();
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
    THROUGHPUT_HEADER,
    targets.map(({ label }) => throughputRow(label, results.get(label)!)),
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

await runBenchmarkMain(runBenchmark);
