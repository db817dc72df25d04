/**
 * The pages' server throughput, for `npm run bench` (home.ts): requests/s, p50/p99 latency and CPU per request of
 * our production server (preview mode: the real HTTP layer with its security headers, compression and one access
 * log line per request, the logs sent to /dev/null) for the anonymous `/` and `/en/`, the signed-in `/my/profile/`
 * and the signed-in `/`, next to the smallest server-rendered React Router page served by the same stack
 * (tests/bench/minimal-app), with the ratios the targets are set on:
 *  - `/` and `/en/` against the minimal page (target ≥ 45%): the missing part is what our middleware, loaders,
 *    i18n (remix-i18next's middleware makes an i18next instance per request) and markup cost beyond React Router;
 *  - the signed-in `/my/profile/` against the anonymous `/` (target ≥ 60%): a signed-in view checks the access
 *    token locally and reads the session row, so it should cost little more than an anonymous one. The signed-in
 *    `/` is the same document as the anonymous one, so its ratio isolates what being signed in costs.
 *
 * How to read it:
 *  - The URLs are measured in alternating rounds (BENCH_ROUNDS, default 3, of BENCH_SECONDS each; the order is
 *    reversed every other round, see measureRounds), so load from anything else on the machine falls on all of them
 *    alike; each ratio is that of the mean rates, and each round's is printed too: a wide spread means the machine
 *    was busy and the run is worth repeating.
 *  - "req/s" is the mean of autocannon's per-second counts; p50/p99 are latencies in ms (medians over the rounds).
 *    autocannon shares the CPUs with the servers, so absolute rates depend on the machine and its load.
 *  - "CPU ms/req" is the server process's CPU time (all threads) per answered request: it hardly depends on other
 *    load, so its ratios (printed beside the throughput ones, as minimal ÷ ours) are the steadier view of the same
 *    question on a shared machine.
 *  - "non-2xx" and "errors" must be 0, or the run stops: the figures would describe error pages.
 *  - The Cognito stand-in's request counter over the signed-in runs must read 0: page views verify tokens locally.
 *  - With DATABASE_URL=postgres://… our server uses that PostgreSQL (production's shape); by default the embedded
 *    PGlite, whose queries run on the server's own thread.
 *  - With BENCH_BASELINE=<git ref> another commit's build serves the same four pages ("base"), measured in the same
 *    rounds and compared with the same minimal page, so a change's cost is read from one run on one machine. Both
 *    servers serve the same mix: a server that also renders the signed-in pages runs its anonymous ones dearer
 *    (more code shapes in play), so a server serving the anonymous pages alone would look cheaper than it is.
 */
import { getRequestCounts, resetRequestCounts } from "../support/stand-in-faults";
import {
  CONNECTIONS,
  MEASURE_SECONDS,
  ROUNDS,
  THROUGHPUT_HEADER,
  WARMUP_SECONDS,
  type RunningServer,
  type ThroughputResult,
  assertServesPage,
  combineRounds,
  measureThroughput,
  percent,
  printTable,
  throughputRow,
} from "./bench-support";
import { signedInCookie } from "./page-member";

const HOME_RATIO_TARGET = 0.45;
const SIGNED_IN_RATIO_TARGET = 0.6;

interface Target {
  label: string;
  server: RunningServer;
  pagePath: string;
  headers: Record<string, string>;
}

/**
 * Measures every target once per round, each right after a warm-up on its own URL, in the listed order in odd
 * rounds and the reverse in even ones (ABBA). Several targets share one server, and the URL measured first after
 * a switch pays more per request than the others, whichever it is, even after a warm-up: a fixed order would make
 * whichever URL comes first look dearer. Reversing every other round puts the same URL on both sides of each round
 * boundary and gives each URL both neighbours.
 */
async function measureRounds(targets: Target[]): Promise<Map<string, ThroughputResult[]>> {
  const runs = new Map<string, ThroughputResult[]>(targets.map((target) => [target.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    console.log(`  round ${round + 1}/${ROUNDS}: ${order.map((target) => target.label).join(", ")}…`);
    for (const target of order) {
      const result = await measureThroughput(target.server.origin + target.pagePath, target.headers, {
        server: target.server,
      });
      runs.get(target.label)!.push(result);
    }
  }
  return runs;
}

/** A member signed in on `server` (whose stand-in listens on `standInPort`): their session cookie, checked. */
async function signedInMemberCookie(server: RunningServer, standInPort: number): Promise<string> {
  const { cookie, email } = await signedInCookie(server, standInPort, "bench-pages");
  const profile = await assertServesPage(server, "/my/profile/", { cookie });
  if (!profile.body.toString("utf8").includes(email)) {
    throw new Error(`${server.name}: /my/profile/ answered 200 but not as the signed-in member`);
  }
  return cookie;
}

/**
 * Measures the pages of `app` (whose stand-in listens on `standInPort`), the minimal page and, when given, the same
 * pages of another commit's build (`baseline`, with its own stand-in); prints the ratios.
 */
export async function measurePageThroughput(
  app: RunningServer,
  minimal: RunningServer,
  standInPort: number,
  baseline?: { server: RunningServer; standInPort: number; commit: string },
) {
  const cookie = await signedInMemberCookie(app, standInPort);
  const targets: Target[] = [
    { label: "our /", server: app, pagePath: "/", headers: {} },
    { label: "our /en/", server: app, pagePath: "/en/", headers: {} },
    { label: "minimal /", server: minimal, pagePath: "/", headers: {} },
    { label: "signed-in /my/profile/", server: app, pagePath: "/my/profile/", headers: { cookie } },
    { label: "signed-in /", server: app, pagePath: "/", headers: { cookie } },
  ];
  if (baseline) {
    const baseCookie = await signedInMemberCookie(baseline.server, baseline.standInPort);
    targets.push(
      { label: "base /", server: baseline.server, pagePath: "/", headers: {} },
      { label: "base /en/", server: baseline.server, pagePath: "/en/", headers: {} },
      {
        label: "base signed-in /my/profile/",
        server: baseline.server,
        pagePath: "/my/profile/",
        headers: { cookie: baseCookie },
      },
      { label: "base signed-in /", server: baseline.server, pagePath: "/", headers: { cookie: baseCookie } },
    );
  }
  for (const target of targets) await assertServesPage(target.server, target.pagePath, target.headers);

  console.log(
    `\nThroughput on Node ${process.versions.node}: ${CONNECTIONS} connections, gzip accepted; ${ROUNDS} rounds of ` +
      `${MEASURE_SECONDS} s per URL (each URL warmed up ${WARMUP_SECONDS} s before each)`,
  );
  const standIn = `http://127.0.0.1:${standInPort}`;
  await resetRequestCounts(standIn);
  const runs = await measureRounds(targets);
  const cognito = await getRequestCounts(standIn);

  const results = new Map([...runs].map(([label, rounds]) => [label, combineRounds(rounds)]));
  console.log();
  printTable(
    THROUGHPUT_HEADER,
    targets.map(({ label }) => throughputRow(label, results.get(label)!)),
  );
  const failed = [...results].filter(([, result]) => result.non2xx > 0 || result.errors + result.timeouts > 0);
  if (failed.length > 0) {
    throw new Error(
      `${failed.map(([label]) => label).join(", ")} had non-2xx answers or errors: those figures describe failures`,
    );
  }

  console.log();
  const compare = (label: string, baseline: string, target: number, what: string) => {
    const ratio = results.get(label)!.requests.mean / results.get(baseline)!.requests.mean;
    const cpuRatio = results.get(baseline)!.cpuMsPerRequest / results.get(label)!.cpuMsPerRequest;
    const rounds = runs
      .get(label)!
      .map((run, round) => percent(run.requests.mean / runs.get(baseline)![round]!.requests.mean));
    console.log(
      `${label} throughput = ${percent(ratio)} of ${what} (${ratio.toFixed(2)}×): ` +
        `${ratio >= target ? "meets" : "BELOW"} the ${percent(target)} target ` +
        `(round by round: ${rounds.join(", ")}; by CPU per request: ${Number.isNaN(cpuRatio) ? "-" : percent(cpuRatio)})`,
    );
  };
  compare("our /", "minimal /", HOME_RATIO_TARGET, "the minimal page's");
  compare("our /en/", "minimal /", HOME_RATIO_TARGET, "the minimal page's");
  if (baseline) {
    console.log(`base = ${baseline.commit} (BENCH_BASELINE), in the same rounds:`);
    compare("base /", "minimal /", HOME_RATIO_TARGET, "the minimal page's");
    compare("base /en/", "minimal /", HOME_RATIO_TARGET, "the minimal page's");
    for (const label of ["our /", "our /en/", "signed-in /my/profile/", "signed-in /"]) {
      const baseLabel = `base ${label.replace(/^our /, "")}`;
      const [ours, base] = [results.get(label)!, results.get(baseLabel)!];
      console.log(
        `${label} against ${baseLabel}: ${percent(ours.requests.mean / base.requests.mean)} of its requests/s, ` +
          `${(ours.cpuMsPerRequest - base.cpuMsPerRequest).toFixed(2)} ms more CPU per request`,
      );
    }
  }
  compare("signed-in /my/profile/", "our /", SIGNED_IN_RATIO_TARGET, "the anonymous home page's");
  const sameDocument = results.get("signed-in /")!.requests.mean / results.get("our /")!.requests.mean;
  console.log(
    `signed-in / throughput = ${percent(sameDocument)} of the anonymous one's: the same page, so the difference is ` +
      "what the session check (local token check, session row) and the member header cost",
  );
  console.log(
    process.env.DATABASE_URL
      ? "database: PostgreSQL (DATABASE_URL), as in production"
      : "database: embedded PGlite, whose queries run on the server's own thread; production uses PostgreSQL: run " +
          "with DATABASE_URL=postgres://… for that figure",
  );
  console.log(
    `Cognito requests during the runs (warm-ups included): ${cognito.total}` +
      (cognito.total ? ` ${JSON.stringify(cognito.byOperation)}` : " (page views verify tokens locally)"),
  );
}
