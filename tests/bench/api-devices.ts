/**
 * Member API benchmark (`npm run bench:api`; BENCH_SECONDS=n sets each measurement's length, default 10;
 * BENCH_ROUNDS=n the number of alternating rounds, default 3; BENCH_CPU_PROF=dir writes each server's CPU profile).
 *
 * What it measures: `GET /api/user-devices` with a bearer token, requests/s and latency, on our production server
 * in preview mode (the real HTTP layer, the API's lane: request id, security headers, CORS, one access log line
 * per request sent to /dev/null, then React Router's handler, the resource route and the API handler), next to
 * the smallest server that does the same work (tests/bench/minimal-api/server.ts: node:http calling the same
 * verifyAccessToken and the same tokenStanding + listActiveDevices queries), measured in the same run, and the
 * ratio of the two (target: ours ≥ 50% of the minimal one's). Our `/healthz/` is measured too, as a reference: the HTTP layer alone, with
 * no token, no database and no React Router.
 *
 * Set-up: one member is created in our server's Cognito stand-in through the SDK and signed in there
 * (InitiateAuth, as a sibling service's sign-in would), and the browser is registered through our own API
 * (`POST /api/user-devices/{key}` with the refresh token), so our database holds a live session for the token's
 * origin_jti. The minimal server verifies the same tokens against the same stand-in; with the embedded PGlite it
 * has its own database (one process per data directory) holding the same session row, recorded with startSession;
 * with DATABASE_URL both servers use that PostgreSQL. Both must answer 200 with the same device list before
 * anything is measured.
 *
 * How to read it:
 *  - The two servers are measured in alternating rounds (ours, minimal, ours, minimal, …), so load from anything
 *    else on the machine falls on both alike; the ratio is that of their mean rates, and each round's is printed
 *    too: a wide spread means the machine was busy and the run is worth repeating.
 *  - "req/s" is the mean of autocannon's per-second counts (over the rounds); p50/p99 are latencies in ms (medians
 *    over the rounds). Absolute numbers depend on the machine (autocannon shares its CPUs with the servers); the
 *    ratio is the number to compare across machines and commits.
 *  - With PGlite each server runs its queries on its own thread (WASM), so the two queries weigh more than they
 *    would on PostgreSQL; run with DATABASE_URL=postgres://… for production's shape.
 *  - Cognito requests during the runs should read 0: tokens are verified locally against the cached JWKS.
 *
 * It is a report, not a test: it exits non-zero only when it cannot measure (build failure, a server that does not
 * start, a set-up call or a check that fails, non-2xx answers or errors during a run), never because a number is bad.
 */
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "../support/stand-ins/provision-cognito";
import { getRequestCounts, resetRequestCounts } from "../support/stand-in-faults";
import { createTestMember } from "../support/test-members";
import {
  CONNECTIONS,
  MEASURE_SECONDS,
  REPO_ROOT,
  ROUNDS,
  THROUGHPUT_HEADER,
  WARMUP_SECONDS,
  type ThroughputResult,
  type HttpResponse,
  type RunningServer,
  combineRounds,
  ensureAppBuild,
  findFreePort,
  httpGet,
  httpRequest,
  makeTempDir,
  measureThroughput,
  percent,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
  startServer,
  throughputRow,
} from "./bench-support";
import type { SeedSession } from "./minimal-api/server";

const RATIO_TARGET = 0.5;
const API_PATH = "/api/user-devices";
const REGION = "ap-northeast-1";
/** Both servers get the same limit, so `deviceLimit` in their answers is the same. */
const DEVICE_LIMIT = "3";
const DEVICE_KEY = "bench-api-device";
const USER_AGENT =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
const MINIMAL_API_SERVER = path.relative(REPO_ROOT, path.join(import.meta.dirname, "minimal-api/server.ts"));

interface StandIn {
  endpoint: string;
  userPoolId: string;
  clientId: string;
}

interface DeviceListBody {
  devices: { key: string; lastLoginAt: string; current: boolean }[];
}

/** A JSON POST with exactly the given headers. */
function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<HttpResponse> {
  const text = JSON.stringify(body);
  return httpRequest(url, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers },
    body: text,
  });
}

/** The stand-in's pool and app client, found through the SDK as an administrator would. */
async function findStandIn(port: number): Promise<StandIn> {
  const endpoint = `http://127.0.0.1:${port}`;
  const cognito = createCognitoClient({ region: REGION, endpoint, userPoolId: "", clientId: "" });
  try {
    const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    const userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id;
    if (!userPoolId) throw new Error("the stand-in has no member-account pool");
    const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    const clientId = clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId;
    if (!clientId) throw new Error("the stand-in's pool has no member-account-web client");
    return { endpoint, userPoolId, clientId };
  } finally {
    cognito.destroy();
  }
}

/** A member signed in at the stand-in, as a sibling service signs one in: its access, ID and refresh tokens. */
async function signInMember(standIn: StandIn, standInPort: number) {
  const member = await createTestMember(standInPort, "bench-api");
  const cognito = createCognitoClient({ region: REGION, endpoint: standIn.endpoint, userPoolId: "", clientId: "" });
  try {
    const output = await cognito.send(
      new InitiateAuthCommand({
        ClientId: standIn.clientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: member.email, PASSWORD: member.password },
      }),
    );
    const { AccessToken, IdToken, RefreshToken } = output.AuthenticationResult ?? {};
    if (!AccessToken || !IdToken || !RefreshToken) throw new Error("the stand-in's sign-in returned no tokens");
    return { email: member.email, accessToken: AccessToken, idToken: IdToken, refreshToken: RefreshToken };
  } finally {
    cognito.destroy();
  }
}

function parseDeviceList(server: string, response: HttpResponse): DeviceListBody {
  try {
    return JSON.parse(response.body.toString("utf8")) as DeviceListBody;
  } catch {
    throw new Error(`${server} answered ${API_PATH} with something that is not JSON`);
  }
}

/** Both servers must give the same answer to the same token before their speeds mean anything side by side. */
async function checkSameAnswers(app: RunningServer, minimal: RunningServer, headers: Record<string, string>) {
  const answers = [];
  for (const server of [app, minimal]) {
    const response = await httpGet(server.origin + API_PATH, headers);
    if (response.status !== 200) {
      throw new Error(
        `${server.name} answered GET ${API_PATH} with ${response.status} instead of 200:\n` +
          `${response.body.toString("utf8").slice(0, 500)}\n${server.stderrTail()}`,
      );
    }
    answers.push({ server, response, body: parseDeviceList(server.name, response) });
  }
  const [ours, theirs] = answers as [(typeof answers)[0], (typeof answers)[0]];
  if (!isDeepStrictEqual(ours.body, theirs.body)) {
    throw new Error(
      `the two servers list different devices:\n  ours:    ${JSON.stringify(ours.body)}\n` +
        `  minimal: ${JSON.stringify(theirs.body)}`,
    );
  }
  for (const name of ["content-type", "cache-control", "content-language"]) {
    if (ours.response.headers[name] !== theirs.response.headers[name]) {
      throw new Error(
        `the two servers answer with different ${name} headers: ` +
          `"${ours.response.headers[name]}" and "${theirs.response.headers[name]}"`,
      );
    }
  }
  if (ours.body.devices.length !== 1 || !ours.body.devices[0]!.current) {
    throw new Error(`the device list is not the one registered device, marked current: ${JSON.stringify(ours.body)}`);
  }
}

async function runBenchmark() {
  await ensureAppBuild();
  // A fixed stand-in port, so the benchmark can create the member and the minimal server can verify its tokens.
  const standInPort = await findFreePort();
  const app = await startPreviewServer({ STANDIN_COGNITO_PORT: String(standInPort), DEVICE_LIMIT });
  const standIn = await findStandIn(standInPort);

  console.log("Creating a member in the stand-in and registering its device through our API…");
  const member = await signInMember(standIn, standInPort);
  const authorization = { authorization: `Bearer ${member.accessToken}` };
  const registration = await postJson(
    `${app.origin}/api/user-devices/${DEVICE_KEY}`,
    { refreshToken: member.refreshToken },
    { ...authorization, "user-agent": USER_AGENT },
  );
  if (registration.status !== 201) {
    throw new Error(
      `registering the device answered ${registration.status} instead of 201:\n` +
        `${registration.body.toString("utf8").slice(0, 500)}\n${app.stderrTail()}`,
    );
  }
  const registered = parseDeviceList("our server", registration).devices.find((device) => device.key === DEVICE_KEY);
  if (!registered) throw new Error("the registered device is missing from the registration's answer");

  const access = decodeJwt(member.accessToken);
  if (typeof access.sub !== "string" || typeof access.origin_jti !== "string") {
    throw new Error("the stand-in's access token has no sub or origin_jti");
  }
  const seed: SeedSession = {
    sub: access.sub,
    email: member.email,
    deviceKey: DEVICE_KEY,
    userAgent: USER_AGENT,
    refreshToken: member.refreshToken,
    originJti: access.origin_jti,
    lastLoginAt: registered.lastLoginAt,
  };
  const minimal = await startServer({
    name: "the minimal API server",
    script: MINIMAL_API_SERVER,
    args: [],
    port: await findFreePort(),
    env: {
      COGNITO_ENDPOINT: standIn.endpoint,
      COGNITO_REGION: REGION,
      COGNITO_USER_POOL_ID: standIn.userPoolId,
      COGNITO_CLIENT_ID: standIn.clientId,
      DEVICE_LIMIT,
      DATA_DIR: makeTempDir("minimal-api"),
      MINIMAL_API_SESSION: JSON.stringify(seed),
    },
    readyPath: "/healthz",
  });

  // The first verification loads the pool's keys into each server's cache; from here on no Cognito call is expected.
  await checkSameAnswers(app, minimal, authorization);

  console.log(
    `\nThroughput: ${CONNECTIONS} connections, bearer token sent, gzip accepted; ${ROUNDS} rounds of ` +
      `${MEASURE_SECONDS} s alternating the two servers (each warmed up ${WARMUP_SECONDS} s before its first)`,
  );
  await resetRequestCounts(standIn.endpoint);
  const oursUrl = app.origin + API_PATH;
  const minimalUrl = minimal.origin + API_PATH;
  const oursRuns: ThroughputResult[] = [];
  const minimalRuns: ThroughputResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    console.log(`  round ${round + 1}/${ROUNDS}: our ${API_PATH}, then the minimal one…`);
    oursRuns.push(await measureThroughput(oursUrl, authorization, { warmup: round === 0, server: app }));
    minimalRuns.push(await measureThroughput(minimalUrl, authorization, { warmup: round === 0, server: minimal }));
  }
  console.log("  our /healthz/ (reference)…");
  const healthz = await measureThroughput(`${app.origin}/healthz/`, {}, { server: app });
  const cognito = await getRequestCounts(standIn.endpoint);

  const results: [string, ThroughputResult][] = [
    [`our ${API_PATH}`, combineRounds(oursRuns)],
    [`minimal ${API_PATH}`, combineRounds(minimalRuns)],
    ["our /healthz/ (reference)", healthz],
  ];
  console.log();
  printTable(
    THROUGHPUT_HEADER,
    results.map(([label, result]) => throughputRow(label, result)),
  );
  const [ours, theirs] = results.map(([, result]) => result.requests.mean) as [number, number];
  const ratio = ours / theirs;
  const verdict = ratio >= RATIO_TARGET ? "meets" : "BELOW";
  const roundRatios = oursRuns.map((run, round) => percent(run.requests.mean / minimalRuns[round]!.requests.mean));
  console.log(
    `\nour ${API_PATH} throughput = ${percent(ratio)} of the minimal server's (${ratio.toFixed(2)}×): ` +
      `${verdict} the ${RATIO_TARGET * 100}% target (round by round: ${roundRatios.join(", ")})`,
  );
  console.log(
    `our ${API_PATH} throughput = ${percent(ours / healthz.requests.mean)} of our /healthz/'s ` +
      "(the HTTP layer alone: no token, no database, no React Router)",
  );
  console.log(
    process.env.DATABASE_URL
      ? "database: PostgreSQL (DATABASE_URL), shared by both servers, as in production"
      : "database: embedded PGlite, one per server, whose queries run on the server's own thread; production uses " +
          "PostgreSQL: run with DATABASE_URL=postgres://… for that figure",
  );
  console.log(
    `Cognito requests during the runs (warm-ups included): ${cognito.total}` +
      (cognito.total ? ` ${JSON.stringify(cognito.byOperation)}` : " (tokens are verified against the cached JWKS)"),
  );

  const failed = results.filter(([, result]) => result.non2xx > 0 || result.errors + result.timeouts > 0);
  if (failed.length > 0) {
    throw new Error(
      `${failed.map(([label]) => label).join(", ")} had non-2xx answers or errors: ` +
        "those figures describe failures, not the endpoint",
    );
  }
}

await runBenchmarkMain(runBenchmark);
