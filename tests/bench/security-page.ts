/**
 * /my/security/ with a long record: one member with 1,000 security events (one every two hours, so 83 days of them
 * are within the page's 90) and 20 staff actions, on PostgreSQL, then p50/p99 of GET /my/security/ (the first page
 * and a page five "older" links deep) through our production server in preview mode, one request at a time, beside
 * the same member's /my/profile/ (a signed-in page without the record), so a busy machine's share can be read off.
 *
 *   npm run bench:security   # DATABASE_URL (default: a throwaway local PostgreSQL cluster), BENCH_RUNS=200
 *
 * A report, never a pass/fail test: the target is under 50 ms p99. The Cognito stand-in's request counter over the
 * page views must read 0 (page views make no Cognito call).
 */
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { getRequestCounts, resetRequestCounts } from "../support/stand-in-faults";
import { startTestPostgres } from "../support/postgres-server";
import {
  ensureAppBuild,
  findFreePort,
  httpGet,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
} from "./bench-support";
import { signedInCookie } from "./page-member";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP_RUNS = 20;
const EVENTS = 1_000;
const STAFF_ACTIONS = 20;
const DEEP_PAGE = 5;
const TARGET_P99_MS = 50;

const percentile = (sorted: number[], fraction: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;

async function seed(databaseUrl: string, email: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [member] = await sql<{ sub: string }[]>`select sub from member_sessions where email = ${email} limit 1`;
    if (!member) throw new Error("the signed-in member has no session row");
    await sql`
      insert into security_events (sub, kind, occurred_at, session_id, device_name, browser, ip_address, new_browser)
      select ${member.sub}::uuid,
        (array['sign-in', 'sign-out', 'device-deactivated', 'password-changed', 'sign-in'])[1 + i % 5],
        now() - i * interval '2 hours', gen_random_uuid(), 'Windows 11', 'Firefox 140', '198.51.100.' || (i % 250),
        i % 7 = 0
      from generate_series(1, ${EVENTS}) as i`;
    await sql`
      insert into staff_audit_events (occurred_at, actor_sub, actor_email, action, target_sub, request_id)
      select now() - i * interval '4 days', gen_random_uuid(), 'staff@example.jp', 'user.refresh', ${member.sub}::uuid,
        'bench'
      from generate_series(1, ${STAFF_ACTIONS}) as i`;
    await sql`analyze security_events`;
  } finally {
    await sql.end();
  }
}

async function measure(url: string, cookie: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let run = 0; run < WARMUP_RUNS + RUNS; run++) {
    const started = performance.now();
    const response = await httpGet(url, { cookie });
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    if (run >= WARMUP_RUNS) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

/** The path of the page `depth` "older" links after the first. */
async function olderPagePath(origin: string, cookie: string, depth: number): Promise<string> {
  let path = "/my/security/";
  for (let step = 0; step < depth; step++) {
    const body = (await httpGet(origin + path, { cookie })).body.toString("utf8");
    const cursor = /href="\/my\/security\/\?cursor=([^"&]+)"/.exec(body)?.[1];
    if (!cursor) throw new Error(`page ${step + 1} has no "older" link`);
    path = `/my/security/?cursor=${cursor}`;
  }
  return path;
}

async function runBenchmark() {
  await ensureAppBuild();
  const database = process.env.DATABASE_URL
    ? { url: process.env.DATABASE_URL, stop: async () => {} }
    : await startTestPostgres();
  if (!database) throw new Error("no PostgreSQL: set DATABASE_URL or install the postgresql package");
  try {
    const standInPort = await findFreePort();
    const app = await startPreviewServer({ STANDIN_COGNITO_PORT: String(standInPort), DATABASE_URL: database.url });
    const { cookie, email } = await signedInCookie(app, standInPort, "security-bench");
    await seed(database.url, email);
    const deepPath = await olderPagePath(app.origin, cookie, DEEP_PAGE - 1);

    const standIn = `http://127.0.0.1:${standInPort}`;
    await resetRequestCounts(standIn);
    const first = await measure(`${app.origin}/my/security/`, cookie);
    const deep = await measure(app.origin + deepPath, cookie);
    const profile = await measure(`${app.origin}/my/profile/`, cookie);
    const cognito = await getRequestCounts(standIn);

    console.log(
      `\nGET /my/security/ with ${EVENTS} events and ${STAFF_ACTIONS} staff actions, PostgreSQL; ${RUNS} runs`,
    );
    printTable(
      ["page", "p50 ms", "p99 ms", `p99 < ${TARGET_P99_MS} ms`],
      [
        ["first", first.p50.toFixed(1), first.p99.toFixed(1), first.p99 < TARGET_P99_MS ? "yes" : "NO"],
        [`page ${DEEP_PAGE}`, deep.p50.toFixed(1), deep.p99.toFixed(1), deep.p99 < TARGET_P99_MS ? "yes" : "NO"],
        ["/my/profile/", profile.p50.toFixed(1), profile.p99.toFixed(1), ""],
      ],
    );
    console.log(`Cognito requests during the page views: ${cognito.total} (must be 0)`);
  } finally {
    await database.stop();
  }
}

await runBenchmarkMain(runBenchmark);
