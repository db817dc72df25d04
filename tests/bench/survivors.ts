/**
 * Which allocations outlive young-generation collections (`npm run bench:survivors`; SURVIVORS_REQUESTS=n views per
 * measurement, default 2000; BENCH_CONNECTIONS=n, default 1; DATABASE_URL=postgres://… runs our server on that
 * PostgreSQL, else PGlite).
 *
 * An object still alive at its second young-generation collection moves to the old generation, which only a full
 * collection frees; under load those full collections are what delays every request in flight at once (README,
 * saturation). For our `/` and the minimal React Router page (tests/bench/minimal-app), each in its own process,
 * V8's sampling heap profiler runs over the same number of views twice: once counting every allocation, once only
 * what no young-generation collection freed (survivors-preload.ts). Printed: what a view allocates and what of it
 * survives, and the allocation sites with the most survivors, with the share of their allocations that survived.
 *
 * Node 20 only: on Node 24 the profiler's second session kept 97–100 % of the samples, so there it does not leave out
 * what young-generation collections freed, and the bench says so instead of printing figures that mean nothing.
 *
 * A report, not a test: it exits non-zero only when it cannot measure.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import {
  type RunningServer,
  REPO_ROOT,
  assertServesPage,
  buildReactRouterApp,
  ensureAppBuild,
  findFreePort,
  makeTempDir,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
  startServer,
} from "./bench-support";
import { SAMPLING_MODES } from "./survivors-preload";

const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");
const PRELOAD = path.join(import.meta.dirname, "survivors-preload.ts");
const REQUESTS = Math.max(100, Number(process.env.SURVIVORS_REQUESTS ?? 2000) || 2000);
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 1) || 1);
const WARMUP_REQUESTS = 2000;
const TOP_SITES = 12;
/** Writing a profile of a few thousand views takes well under a second; this only bounds a stuck server. */
const PROFILE_WAIT_MS = 120_000;

type Autocannon = (options: {
  url: string;
  connections: number;
  amount: number;
  headers: Record<string, string>;
}) => PromiseLike<{ non2xx: number; errors: number; timeouts: number }>;
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: ProfileNode[];
}
interface HeapProfile {
  head: ProfileNode;
  samples: Array<{ nodeId: number; size: number }>;
}

/** "function package:line" (or the file inside this repository) for the frame that made the allocation. */
function siteOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const packageName = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  const where = packageName ?? (url.replace(/^file:\/\//, "").replace(`${REPO_ROOT}/`, "") || "(native)");
  return `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
}

/** Bytes sampled per allocation site. */
function bytesBySite(profile: HeapProfile): Map<string, number> {
  const sites = new Map<number, string>();
  const visit = (node: ProfileNode) => {
    sites.set(node.id, siteOf(node));
    for (const child of node.children ?? []) visit(child);
  };
  visit(profile.head);
  const bytes = new Map<string, number>();
  for (const sample of profile.samples) {
    const site = sites.get(sample.nodeId)!;
    bytes.set(site, (bytes.get(site) ?? 0) + sample.size);
  }
  return bytes;
}

async function waitForFile(file: string, server: RunningServer) {
  const deadline = Date.now() + PROFILE_WAIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(`${server.name} wrote no ${path.basename(file)}:\n${server.stderrTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function load(url: string, amount: number, connections: number) {
  const result = await autocannon({ url, connections, amount, headers: { "accept-encoding": "gzip" } });
  if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${url} failed during the run`);
}

/** One sampling session per mode over REQUESTS views, after a warm-up; the bytes per site of each. */
async function sample(server: RunningServer, url: string, profileDir: string) {
  await load(url, WARMUP_REQUESTS, 10);
  const profiles: Record<string, Map<string, number>> = {};
  // In the preload's order: each SIGUSR2 starts its next session or stops the running one.
  for (const { name: mode } of SAMPLING_MODES) {
    server.child.kill("SIGUSR2");
    await waitForFile(path.join(profileDir, `${mode}.started`), server);
    await load(url, REQUESTS, CONNECTIONS);
    server.child.kill("SIGUSR2");
    const file = path.join(profileDir, `${mode}.heapprofile`);
    await waitForFile(file, server);
    profiles[mode] = bytesBySite(JSON.parse(readFileSync(file, "utf8")) as HeapProfile);
  }
  return { allocated: profiles.allocated!, survived: profiles.survived! };
}

const total = (bytes: Map<string, number>) => [...bytes.values()].reduce((sum, value) => sum + value, 0);
const kilobytesPerView = (bytes: number) => (bytes / REQUESTS / 1024).toFixed(0);

async function runBenchmark() {
  if (process.versions.node.split(".")[0] !== "20") {
    throw new Error(
      `survivors.ts measures on Node 20 only: on Node 24 V8's profiler kept what young-generation collections ` +
        `freed, so its figures would not mean what they say (this is Node ${process.versions.node})`,
    );
  }
  await ensureAppBuild();
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);
  const nodeArgs = ["--import", "tsx", "--import", PRELOAD];
  const ourDir = makeTempDir("survivors-ours");
  const minimalDir = makeTempDir("survivors-minimal");
  const ours = await startPreviewServer({ SURVIVORS_PROFILE_DIR: ourDir }, undefined, nodeArgs);
  const minimal = await startServer({
    name: "the minimal app",
    script: path.relative(REPO_ROOT, path.join(MINIMAL_APP_DIR, "server.ts")),
    args: [],
    port: await findFreePort(),
    env: { SURVIVORS_PROFILE_DIR: minimalDir },
    readyPath: "/",
    nodeArgs,
  });
  await assertServesPage(ours, "/");

  console.log(
    `\nSurvivors of young-generation collections on Node ${process.versions.node}, ` +
      `${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}: ${REQUESTS} views of / per measurement, ` +
      `${CONNECTIONS} connection(s)`,
  );
  const summary: string[][] = [];
  for (const [label, server, dir] of [
    ["our /", ours, ourDir],
    ["minimal /", minimal, minimalDir],
  ] as const) {
    const { allocated, survived } = await sample(server, `${server.origin}/`, dir);
    summary.push([
      label,
      kilobytesPerView(total(allocated)),
      kilobytesPerView(total(survived)),
      `${((total(survived) / total(allocated)) * 100).toFixed(0)}%`,
    ]);
    console.log(`\n${label}: the allocation sites with the most survivors`);
    const top = [...survived].sort((a, b) => b[1] - a[1]).slice(0, TOP_SITES);
    printTable(
      ["site", "survived kB/view", "allocated kB/view", "survived"],
      top.map(([site, bytes]) => {
        const allocatedBytes = allocated.get(site) ?? 0;
        return [
          site,
          kilobytesPerView(bytes),
          kilobytesPerView(allocatedBytes),
          // Two samplings of different views: a site sampled more in the second can show over 100 %.
          allocatedBytes ? `${((bytes / allocatedBytes) * 100).toFixed(0)}%` : "-",
        ];
      }),
    );
  }
  console.log();
  printTable(["URL", "allocated kB/view", "survived kB/view", "survived"], summary);
}

await runBenchmarkMain(runBenchmark);
