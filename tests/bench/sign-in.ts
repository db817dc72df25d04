/**
 * Sign-in benchmark (`npm run bench:auth`; BENCH_SECONDS=n sets the measurement's length, default 10). The
 * signed-in page's throughput beside the anonymous home page's is measured by `npm run bench` (page-throughput.ts).
 *
 * What it measures, against our production server in preview mode (the Cognito stand-in over HTTP through the
 * AWS SDK, PGlite, the real HTTP layer with one access log line per request sent to /dev/null), over loopback:
 * sign-in round trips. CONNECTIONS browsers post the sign-in form in a closed loop (each browser its own member and
 * its own device cookie, so every sign-in replaces that browser's previous session and the device limit is never
 * reached; DEVICE_LIMIT is raised anyway). One round trip is Cognito's AdminInitiateAuth at the stand-in plus the
 * session transaction in the database, ending in a 302 with a session cookie. The stand-in's request counter gives
 * the Cognito calls per sign-in (1 expected).
 *
 * How to read it:
 *  - Sign-ins/s is dominated by the stand-in (cognito-local persists every sign-in to its JSON files); it says how
 *    the app's side behaves under that load and catches regressions, not what real Cognito would allow (Cognito's
 *    own quota for AdminInitiateAuth is the production ceiling).
 *  - The rate limits on sign-in (RATE_LIMIT_SIGN_IN_PER_ACCOUNT / _PER_IP) are raised for this run: a loop from one
 *    loopback address would otherwise measure 429 answers. A "rate-limited" count above 0 means they were not.
 *  - Absolute numbers depend on the machine (the load generator shares its CPUs with the server and the stand-in).
 *
 * It is a report, not a test: it exits non-zero only when it cannot measure (build failure, a server that does
 * not start, a sign-in that does not work), never because a number is bad.
 */
import http from "node:http";
import { performance } from "node:perf_hooks";
import { getRequestCounts, resetRequestCounts } from "../support/stand-in-faults";
import { createTestMember } from "../support/test-members";
import {
  CONNECTIONS,
  MEASURE_SECONDS,
  WARMUP_SECONDS,
  type RunningServer,
  ensureAppBuild,
  findFreePort,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
} from "./bench-support";
import { type PostResponse, postForm, sessionCookieOf } from "./page-member";
import { pairOf } from "../support/cookie-jar";

/** Far above what one run can reach: the limits are not what this measures. */
const RAISED_RATE_LIMIT = "1000000";

type Outcome = "signedIn" | "rateLimited" | "deviceLimit" | "other";

interface SignInStats {
  latenciesMs: number[];
  outcomes: Record<Outcome, number>;
  elapsedS: number;
}

function outcomeOf(response: PostResponse): Outcome {
  if (response.status === 302 && sessionCookieOf(response)) return "signedIn";
  if (response.status === 429) return "rateLimited";
  if (response.status === 302 && response.setCookies.some((cookie) => cookie.startsWith("id_pending_sign_in="))) {
    return "deviceLimit";
  }
  return "other";
}

/**
 * `browsers.length` browsers sign in over and over for `seconds`, each keeping the device cookie it was given, so
 * each sign-in replaces that browser's previous session (one session per browser).
 */
async function signInLoop(
  app: RunningServer,
  browsers: { email: string; password: string; deviceCookie: string }[],
  seconds: number,
): Promise<SignInStats> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: browsers.length });
  const stats: SignInStats = {
    latenciesMs: [],
    outcomes: { signedIn: 0, rateLimited: 0, deviceLimit: 0, other: 0 },
    elapsedS: seconds,
  };
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    browsers.map(async (browser) => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const response = await postForm(
          agent,
          `${app.origin}/auth/sign-in/`,
          { intent: "sign-in", email: browser.email, password: browser.password },
          browser.deviceCookie,
        );
        stats.latenciesMs.push(performance.now() - sent);
        stats.outcomes[outcomeOf(response)] += 1;
        const device = response.setCookies.find((cookie) => cookie.startsWith("id_device="));
        if (device) browser.deviceCookie = pairOf(device);
      }
    }),
  );
  // The last round trips end after the deadline; the rate is over the time actually spent.
  stats.elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  return stats;
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** The embedded Cognito stand-in: its port (to create members) and endpoint (its harness's request counter). */
interface StandIn {
  port: number;
  endpoint: string;
}

async function measureSignIns(app: RunningServer, standIn: StandIn) {
  console.log(`\nSign-in round trips: creating ${CONNECTIONS} members through the SDK…`);
  const browsers = [];
  for (let index = 0; index < CONNECTIONS; index++) {
    browsers.push({ ...(await createTestMember(standIn.port, `bench-${index}`)), deviceCookie: "" });
  }

  // One sign-in first: it must work, or the loop would measure refusals.
  const probe = await postForm(
    new http.Agent(),
    `${app.origin}/auth/sign-in/`,
    { intent: "sign-in", email: browsers[0]!.email, password: browsers[0]!.password },
    "",
  );
  if (outcomeOf(probe) !== "signedIn") {
    throw new Error(`a sign-in answered ${probe.status} without a session cookie:\n${app.stderrTail()}`);
  }

  console.log(`  ${CONNECTIONS} browsers, ${WARMUP_SECONDS} s warm-up then ${MEASURE_SECONDS} s of sign-ins…`);
  await signInLoop(app, browsers, WARMUP_SECONDS);
  await resetRequestCounts(standIn.endpoint);
  const stats = await signInLoop(app, browsers, MEASURE_SECONDS);
  const cognito = await getRequestCounts(standIn.endpoint);

  const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
  const total = sorted.length;
  console.log();
  printTable(
    ["POST /auth/sign-in/", "sign-ins/s", "p50 ms", "p99 ms", "signed in", "rate-limited", "device limit", "other"],
    [
      [
        `${CONNECTIONS} browsers`,
        (stats.outcomes.signedIn / stats.elapsedS).toFixed(1),
        percentile(sorted, 0.5).toFixed(1),
        percentile(sorted, 0.99).toFixed(1),
        String(stats.outcomes.signedIn),
        String(stats.outcomes.rateLimited),
        String(stats.outcomes.deviceLimit),
        String(stats.outcomes.other),
      ],
    ],
  );
  const perSignIn = (count: number | undefined) => ((count ?? 0) / Math.max(1, total)).toFixed(2);
  console.log(
    `\nCognito requests per sign-in: ${perSignIn(cognito.total)} ` +
      `(AdminInitiateAuth ${perSignIn(cognito.byOperation.AdminInitiateAuth)}; ${cognito.total} for ${total} round trips)`,
  );
}

async function runBenchmark() {
  await ensureAppBuild();
  // A fixed stand-in port, so members can be created and Cognito requests counted through its harness.
  const standInPort = await findFreePort();
  const app = await startPreviewServer({
    STANDIN_COGNITO_PORT: String(standInPort),
    DEVICE_LIMIT: "100",
    RATE_LIMIT_SIGN_IN_PER_ACCOUNT: RAISED_RATE_LIMIT,
    RATE_LIMIT_SIGN_IN_PER_IP: RAISED_RATE_LIMIT,
  });
  const standIn = { port: standInPort, endpoint: `http://127.0.0.1:${standInPort}` };
  await measureSignIns(app, standIn);
}

await runBenchmarkMain(runBenchmark);
