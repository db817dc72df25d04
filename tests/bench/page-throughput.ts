/**
 * The pages' server throughput, for `npm run bench` (pages.ts): requests/s, p50/p99 latency and CPU per view of our
 * production server for the pages in MEASURED_PAGES (measured-app.ts), each against the minimal React Router page
 * measured in the same rounds, and with BENCH_BASELINE against the base's same page.
 *
 * How to read it:
 *  - The URLs are measured in alternating rounds (BENCH_ROUNDS, default 3, of BENCH_SECONDS each, every URL warmed up
 *    before each run; the order is reversed every other round), so load from anything else on the machine falls on
 *    all of them alike. Each round's ratio is printed too: a wide spread means the machine was busy.
 *  - "req/s" is the mean of autocannon's per-second counts, which share the CPUs with the servers, so absolute rates
 *    depend on the machine. "CPU ms/view" is the server process's CPU time per answered request (all threads): it
 *    hardly depends on other load, so "of minimal by CPU" (minimal's CPU per view ÷ ours) is the steadier figure.
 *  - Every answer must be 2xx, or the run stops: the figures would describe error pages.
 *  - The Cognito stand-in's requests over the runs, the staff group check job's apart: page views make none.
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
  combineRounds,
  measureThroughput,
  percent,
  printTable,
  throughputRow,
} from "./bench-support";
import {
  MEASURED_PAGES,
  MINIMAL,
  type MeasuredApp,
  type MeasuredTarget,
  databaseLabel,
  measuredTargets,
} from "./measured-app";

/** The staff group check job's one Cognito call (app/domain/directory/staff-group-check.server.ts), no page view's. */
const STAFF_GROUP_CHECK = "ListUsersInGroup";

/**
 * Measures every target once per round, in the listed order in odd rounds and the reverse in even ones (ABBA): the
 * URL measured first after a switch pays more per request than the others, whichever it is, even after a warm-up.
 */
async function measureRounds(targets: MeasuredTarget[]): Promise<Map<string, ThroughputResult[]>> {
  const runs = new Map<string, ThroughputResult[]>(targets.map((target) => [target.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    console.log(`  round ${round + 1}/${ROUNDS}…`);
    for (const target of order) {
      const result = await measureThroughput(target.server.origin + target.pagePath, target.headers, {
        server: target.server,
      });
      runs.get(target.label)!.push(result);
    }
  }
  return runs;
}

export async function measurePageThroughput(apps: MeasuredApp[], minimal: RunningServer) {
  const targets = measuredTargets(apps, minimal);
  console.log(
    `\nPage throughput on Node ${process.versions.node}, ${databaseLabel()}: ${CONNECTIONS} connections, gzip ` +
      `accepted; ${ROUNDS} rounds of ${MEASURE_SECONDS} s per URL, each warmed up ${WARMUP_SECONDS} s before`,
  );
  for (const app of apps) {
    if (app.commit) console.log(`${app.name} = ${app.commit} (BENCH_BASELINE)`);
    await resetRequestCounts(`http://127.0.0.1:${app.standInPort}`);
  }
  const runs = await measureRounds(targets);
  const results = new Map([...runs].map(([label, rounds]) => [label, combineRounds(rounds)]));
  console.log();
  printTable(
    THROUGHPUT_HEADER,
    targets.map(({ label }) => throughputRow(label, results.get(label)!)),
  );
  const failed = [...results].filter(([, result]) => result.non2xx > 0 || result.errors + result.timeouts > 0);
  if (failed.length > 0) {
    throw new Error(`${failed.map(([label]) => label).join(", ")} had non-2xx answers or errors`);
  }

  const minimalResult = results.get(MINIMAL)!;
  const rows = targets
    .filter(({ label }) => label !== MINIMAL)
    .map(({ label }) => {
      const result = results.get(label)!;
      const rounds = runs
        .get(label)!
        .map((run, round) => percent(run.requests.mean / runs.get(MINIMAL)![round]!.requests.mean));
      return [
        label,
        percent(result.requests.mean / minimalResult.requests.mean),
        percent(minimalResult.cpuMsPerRequest / result.cpuMsPerRequest),
        rounds.join(" "),
      ];
    });
  console.log();
  printTable(["page", "of minimal by req/s", "of minimal by CPU", "req/s by round"], rows);

  const base = apps.find((app) => app.name === "base");
  if (base) {
    console.log();
    printTable(
      ["page", "our req/s ÷ base's", "our CPU ms/view − base's"],
      MEASURED_PAGES.map((page) => {
        const [ours, theirs] = [results.get(`our ${page.label}`)!, results.get(`base ${page.label}`)!];
        return [
          page.label,
          percent(ours.requests.mean / theirs.requests.mean),
          (ours.cpuMsPerRequest - theirs.cpuMsPerRequest).toFixed(2),
        ];
      }),
    );
  }

  console.log();
  for (const app of apps) {
    const { byOperation } = await getRequestCounts(`http://127.0.0.1:${app.standInPort}`);
    const { [STAFF_GROUP_CHECK]: staffGroupChecks = 0, ...others } = byOperation;
    const fromPages = Object.values(others).reduce((total, count) => total + count, 0);
    console.log(
      `Cognito requests from ${app.name} during the runs: ${fromPages} from page views` +
        (fromPages ? ` ${JSON.stringify(others)}` : " (they verify tokens locally)") +
        `; ${staffGroupChecks} ${STAFF_GROUP_CHECK} from the staff group check, a job that runs on a timer`,
    );
  }
}
