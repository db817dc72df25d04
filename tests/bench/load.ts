/**
 * Load test (`npm run bench:load -- --members=50 --seconds=60`, or LOAD_MEMBERS / LOAD_SECONDS; DATABASE_URL=
 * postgres://… runs it on that PostgreSQL, else on a throwaway one started for the run).
 *
 * What it does: starts our production server in preview mode (the Cognito stand-in and mail capture embedded) on
 * PostgreSQL, creates the members through the stand-in's AWS API (never the UI), gives each a bearer token as a
 * sibling service would (USER_PASSWORD_AUTH) and registers its device through our API, then lets every member loop
 * for the given time, each over its own keep-alive connection like a browser: sign in, view three pages, open and
 * post the profile edit form, call the member API twice with its token, sign out.
 *
 * What it prints: requests/s overall, and per kind of request its count, p50/p99 and failures (any answer other
 * than the expected status, or no answer); the server's resident memory and JavaScript heap before and after the
 * run (from its metrics port, prom-client's process metrics); and the database connections open to its database
 * (pg_stat_activity) before, at most during, and after the run.
 *
 * The sign-in, profile and API rate limits are raised for the run: every member comes from the same loopback
 * address and signs in again every cycle, so the normal limits would turn the load into 429 answers. The device
 * limit is raised for the same reason. It is a report, not a test: it exits non-zero only when it cannot measure.
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { bearerTokensFor, connectToStandIn } from "../support/bearer-tokens";
import { startTestPostgres } from "../support/postgres-server";
import { createTestMember } from "../support/test-members";
import {
  type RunningServer,
  addCleanup,
  ensureAppBuild,
  findFreePort,
  httpGet,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
} from "./bench-support";
import { postForm, sessionCookieOf } from "./page-member";
import { pairOf } from "../support/cookie-jar";

const { values: args } = parseArgs({
  options: { members: { type: "string" }, seconds: { type: "string" } },
  allowPositionals: false,
});
const MEMBERS = Math.max(1, Number(args.members ?? process.env.LOAD_MEMBERS ?? 50) || 50);
const SECONDS = Math.max(1, Number(args.seconds ?? process.env.LOAD_SECONDS ?? 60) || 60);

const RAISED_LIMIT = "1000000";
const RAISED_LIMITS = Object.fromEntries(
  ["SIGN_IN", "PROFILE_UPDATE", "MEMBER_REFRESH", "DEVICE_REGISTRATION"].flatMap((policy) =>
    ["PER_ACCOUNT", "PER_MEMBER", "PER_IP"].map((scope) => [`RATE_LIMIT_${policy}_${scope}`, RAISED_LIMIT]),
  ),
);
// Only the variables the configuration knows: it refuses none, but an unknown name would only mislead.
const KNOWN_LIMITS = new Set([
  "RATE_LIMIT_SIGN_IN_PER_ACCOUNT",
  "RATE_LIMIT_SIGN_IN_PER_IP",
  "RATE_LIMIT_PROFILE_UPDATE_PER_MEMBER",
  "RATE_LIMIT_PROFILE_UPDATE_PER_IP",
  "RATE_LIMIT_MEMBER_REFRESH_PER_MEMBER",
  "RATE_LIMIT_MEMBER_REFRESH_PER_IP",
  "RATE_LIMIT_DEVICE_REGISTRATION_PER_MEMBER",
  "RATE_LIMIT_DEVICE_REGISTRATION_PER_IP",
]);
for (const name of Object.keys(RAISED_LIMITS)) if (!KNOWN_LIMITS.has(name)) delete RAISED_LIMITS[name];

const PAGES = ["/", "/my/profile/", "/my/devices/"];
const PROFILE_FORM = {
  familyName: "Tanaka",
  givenName: "Hanako",
  birthYear: "1990",
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  organization: "Tanaka Sekkei",
  preferredLanguage: "ja",
};
const USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

const KINDS = ["sign-in", "page view", "profile form", "profile edit", "API call", "sign-out"] as const;
type Kind = (typeof KINDS)[number];

interface Member {
  email: string;
  password: string;
  accessToken: string;
  deviceCookie: string;
  agent: http.Agent;
}

interface Stats {
  latenciesMs: Record<Kind, number[]>;
  failures: Record<Kind, number>;
  /** The first few failures, to say what went wrong. */
  samples: string[];
}

/** A request over the member's own keep-alive connection: its status and Set-Cookie headers; the body is read and dropped. */
function send(
  member: Member,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; setCookies: string[] }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? "GET",
        agent: member.agent,
        headers: { "accept-encoding": "gzip", "user-agent": USER_AGENT, ...options.headers },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, setCookies: response.headers["set-cookie"] ?? [] }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

/** One member's cycles until the deadline; a failed step ends that cycle (signed out or not, the next signs in). */
async function memberLoop(app: RunningServer, member: Member, deadline: number, stats: Stats) {
  const step = async <T>(kind: Kind, run: () => Promise<T>, ok: (result: T) => boolean): Promise<T | undefined> => {
    const started = performance.now();
    try {
      const result = await run();
      stats.latenciesMs[kind].push(performance.now() - started);
      if (ok(result)) return result;
      if (stats.samples.length < 5) stats.samples.push(`${kind}: ${JSON.stringify(result).slice(0, 200)}`);
    } catch (error) {
      if (stats.samples.length < 5) stats.samples.push(`${kind}: ${String(error)}`);
    }
    stats.failures[kind]++;
    return undefined;
  };
  const statusIs = (expected: number) => (result: { status: number }) => result.status === expected;

  while (performance.now() < deadline) {
    const signIn = await step(
      "sign-in",
      () =>
        postForm(
          member.agent,
          `${app.origin}/auth/sign-in/`,
          { intent: "sign-in", email: member.email, password: member.password },
          member.deviceCookie,
        ),
      (response) => response.status === 302 && sessionCookieOf(response) !== undefined,
    );
    const device = signIn?.setCookies.find((cookie) => cookie.startsWith("id_device="));
    if (device) member.deviceCookie = pairOf(device);
    const session = signIn && sessionCookieOf(signIn);
    if (!session) continue;
    const cookie = `${member.deviceCookie}; ${pairOf(session)}`;

    for (const page of PAGES) {
      await step("page view", () => send(member, app.origin + page, { headers: { cookie } }), statusIs(200));
    }
    await step(
      "profile form",
      () => send(member, `${app.origin}/my/profile/edit/`, { headers: { cookie } }),
      statusIs(200),
    );
    await step(
      "profile edit",
      () => postForm(member.agent, `${app.origin}/my/profile/edit/`, PROFILE_FORM, cookie),
      statusIs(302),
    );
    for (let call = 0; call < 2; call++) {
      await step(
        "API call",
        () =>
          send(member, `${app.origin}/api/user-devices`, {
            headers: { authorization: `Bearer ${member.accessToken}` },
          }),
        statusIs(200),
      );
    }
    await step("sign-out", () => postForm(member.agent, `${app.origin}/auth/sign-out/`, {}, cookie), statusIs(302));
  }
}

/** Creates a member in the stand-in, gets its bearer tokens and registers its device through our API. */
async function prepareMember(app: RunningServer, standInPort: number, index: number): Promise<Member> {
  const { email, password } = await createTestMember(standInPort, `load-${index}`);
  const sdk = await connectToStandIn(standInPort);
  const tokens = await bearerTokensFor(sdk, email, password).finally(() => sdk.destroy());
  const member: Member = {
    email,
    password,
    accessToken: tokens.accessToken,
    deviceCookie: "",
    agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const body = JSON.stringify({ refreshToken: tokens.refreshToken });
  const registration = await send(member, `${app.origin}/api/user-devices/load-device-${index}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${tokens.accessToken}`,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    },
    body,
  });
  if (registration.status !== 201) {
    throw new Error(`registering member ${index}'s device answered ${registration.status}:\n${app.stderrTail()}`);
  }
  return member;
}

/** The server's resident memory and heap in use, from its metrics port (prom-client's process metrics). */
async function memoryOf(metricsOrigin: string): Promise<{ rss: number; heap: number }> {
  const text = (await httpGet(`${metricsOrigin}/metrics`)).body.toString("utf8");
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return { rss: value("process_resident_memory_bytes"), heap: value("nodejs_heap_size_used_bytes") };
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

async function runBenchmark() {
  await ensureAppBuild();
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const throwaway = await startTestPostgres();
    if (!throwaway) throw new Error("no DATABASE_URL and no local PostgreSQL to start a throwaway one");
    addCleanup(() => throwaway.stop());
    databaseUrl = throwaway.url;
  }
  const database = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  addCleanup(() => database.end());
  const connections = async () => {
    const [row] = await database<{ count: number }[]>`
      select count(*)::int as count from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`;
    return row!.count;
  };

  const standInPort = await findFreePort();
  const metricsPort = await findFreePort();
  const app = await startPreviewServer({
    DATABASE_URL: databaseUrl,
    STANDIN_COGNITO_PORT: String(standInPort),
    METRICS_PORT: String(metricsPort),
    DEVICE_LIMIT: "100",
    ...RAISED_LIMITS,
  });
  const metricsOrigin = `http://127.0.0.1:${metricsPort}`;

  console.log(`Creating ${MEMBERS} members through the stand-in and registering their devices through our API…`);
  const members: Member[] = [];
  for (let index = 0; index < MEMBERS; index++) members.push(await prepareMember(app, standInPort, index));

  const memoryBefore = await memoryOf(metricsOrigin);
  const connectionsBefore = await connections();
  let connectionsMax = connectionsBefore;
  const sampler = setInterval(() => {
    connections().then(
      (count) => (connectionsMax = Math.max(connectionsMax, count)),
      () => undefined,
    );
  }, 1000);

  console.log(`${MEMBERS} members for ${SECONDS} s: sign in, 3 pages, profile form and edit, 2 API calls, sign out…`);
  const stats: Stats = {
    latenciesMs: Object.fromEntries(KINDS.map((kind) => [kind, []])) as unknown as Stats["latenciesMs"],
    failures: Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Stats["failures"],
    samples: [],
  };
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(members.map((member) => memberLoop(app, member, deadline, stats)));
  const elapsedS = (performance.now() - started) / 1000;
  clearInterval(sampler);
  for (const member of members) member.agent.destroy();

  const memoryAfter = await memoryOf(metricsOrigin);
  const connectionsAfter = await connections();

  const rows = KINDS.map((kind) => {
    const sorted = [...stats.latenciesMs[kind]].sort((a, b) => a - b);
    return [
      kind,
      String(sorted.length),
      (sorted.length / elapsedS).toFixed(1),
      percentile(sorted, 0.5).toFixed(0),
      percentile(sorted, 0.99).toFixed(0),
      String(stats.failures[kind]),
    ];
  });
  const total = KINDS.reduce((sum, kind) => sum + stats.latenciesMs[kind].length, 0);
  const failures = KINDS.reduce((sum, kind) => sum + stats.failures[kind], 0);
  rows.push(["all", String(total), (total / elapsedS).toFixed(1), "", "", String(failures)]);
  console.log(
    `\nNode ${process.versions.node}, PostgreSQL, ${MEMBERS} members, ${elapsedS.toFixed(0)} s ` +
      `(${(stats.latenciesMs["sign-in"].length / MEMBERS).toFixed(1)} cycles per member)\n`,
  );
  printTable(["kind", "requests", "req/s", "p50 ms", "p99 ms", "failed"], rows);
  console.log(
    `\nServer memory: resident ${mb(memoryBefore.rss)} → ${mb(memoryAfter.rss)} ` +
      `(${mb(memoryAfter.rss - memoryBefore.rss)} more), JavaScript heap in use ${mb(memoryBefore.heap)} → ` +
      `${mb(memoryAfter.heap)} (${mb(memoryAfter.heap - memoryBefore.heap)} more)`,
  );
  console.log(
    `Database connections to its database (pg_stat_activity): ${connectionsBefore} before, ` +
      `at most ${connectionsMax} during, ${connectionsAfter} after`,
  );
  if (stats.samples.length > 0) console.log(`First failures:\n  ${stats.samples.join("\n  ")}`);
}

await runBenchmarkMain(runBenchmark);
