import { AdminGetUserCommand } from "@aws-sdk/client-cognito-identity-provider";
import { beforeAll, expect, test } from "vitest";
import { get, signIn, signedIn } from "../../support/session-http";
import { type TestServer, sdk, useTestServers } from "../../support/session-servers";
import { findFreePort } from "../../support/stand-ins/cognito-stand-in";
import { createTestMember } from "../../support/test-members";

/**
 * The operators' metrics (app/integrations/metrics.server.ts) on the production build: served on METRICS_PORT only,
 * with requests named by route, Cognito calls by operation and outcome, the database's queries and the process's
 * own metrics, and never a path, an address or a member's id in a label.
 */

const METRICS_PORT = await findFreePort();
/** A low limit, so that a few wrong passwords meet it. */
const SIGN_IN_LIMIT = 3;
const servers = useTestServers({
  main: { METRICS_PORT: String(METRICS_PORT), RATE_LIMIT_SIGN_IN_PER_ACCOUNT: String(SIGN_IN_LIMIT) },
});
let main: TestServer;
beforeAll(() => {
  main = servers.main;
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus's text format, one sample per line (`name{label="value",…} number`); comments skipped. */
function samplesOf(exposition: string): Sample[] {
  return exposition
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1]!, pair[2]!]),
      );
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

async function scrape(): Promise<{ response: Response; text: string; samples: Sample[] }> {
  const response = await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`);
  const text = await response.text();
  return { response, text, samples: samplesOf(text) };
}

/** The value of the one sample with this name and these labels (others may vary), or undefined. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  )?.value;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

test("after a sign-in, /metrics on METRICS_PORT names the requests by route and counts Cognito calls and queries", async () => {
  const member = await createTestMember(main.standInPort, "metrics");
  const { cognito, userPoolId } = await sdk(main);
  const user = await cognito.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: member.email }));
  const sub = user.UserAttributes?.find((attribute) => attribute.Name === "sub")?.Value ?? "";
  expect(sub).toMatch(UUID);

  // A wrong password, then the right one: AdminInitiateAuth with two outcomes.
  expect((await signIn(main, { ...member, password: "not-the-password" })).response.status).toBe(400);
  const cookie = await signedIn(main, member);
  expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
  expect((await get(main, "/en/auth/sign-in/")).status).toBe(200);
  // Paths that carry ids: the member's sub in a staff page's URL (the staff sign-in for a member), an unknown page, an API
  // route with a parameter (no token: 401). None of them may reach a label.
  expect((await get(main, `/admin/users/${sub}/`, cookie)).status).toBe(302);
  expect((await get(main, `/no-such-page/${crypto.randomUUID()}/`)).status).toBe(404);
  const deviceUrl = `${main.process.url}/api/user-devices/${crypto.randomUUID()}`;
  expect((await fetch(deviceUrl, { method: "DELETE" })).status).toBe(401);
  // What no route answers: a health check, a static file, the browser's route discovery, a refused method.
  expect((await fetch(`${main.process.url}/healthz/`)).status).toBe(200);
  expect((await fetch(`${main.process.url}/favicon.ico`)).status).toBe(200);
  expect((await fetch(`${main.process.url}/__manifest?paths=/`)).status).toBeLessThan(300);
  expect((await fetch(`${main.process.url}/`, { method: "PUT" })).status).toBe(405);
  // A method outside HTTP's own (WebDAV's): whatever the answer, its label is OTHER, so the label's set is bounded.
  for (const method of ["PROPFIND", "MKCOL"]) {
    expect((await fetch(`${main.process.url}/`, { method })).status).toBeGreaterThanOrEqual(400);
  }

  const { response, text, samples } = await scrape();
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);

  // Requests: the duration histogram's count per route name, method and status.
  const requests = (labels: Record<string, string>) => valueOf(samples, "http_request_duration_seconds_count", labels);
  expect(requests({ route: "auth-sign-in", method: "POST", status: "302" })).toBe(1);
  expect(requests({ route: "auth-sign-in", method: "POST", status: "400" })).toBe(1);
  // Both languages' sign-in page under the one name.
  expect(requests({ route: "auth-sign-in", method: "GET", status: "200" })).toBe(1);
  expect(requests({ route: "my-profile", method: "GET", status: "200" })).toBe(1);
  expect(requests({ route: "admin-user", method: "GET", status: "302" })).toBe(1);
  expect(requests({ route: "not-found", method: "GET", status: "404" })).toBe(1);
  expect(requests({ route: "api.user-device", method: "DELETE", status: "401" })).toBe(1);
  expect(requests({ route: "healthz", method: "GET", status: "200" })).toBe(1);
  expect(requests({ route: "static-file", method: "GET", status: "200" })).toBe(1);
  expect(samples.some((sample) => sample.labels.route === "route-discovery")).toBe(true);
  expect(requests({ route: "unrouted", method: "PUT", status: "405" })).toBe(1);
  const counts = samples.filter((sample) => sample.name === "http_request_duration_seconds_count");
  const otherCount = counts.filter((sample) => sample.labels.method === "OTHER").map((sample) => sample.value);
  expect(otherCount.reduce((sum, value) => sum + value, 0)).toBe(2);
  expect(new Set(counts.map((sample) => sample.labels.method))).toEqual(
    new Set(["GET", "POST", "PUT", "DELETE", "OTHER"]),
  );
  expect(
    valueOf(samples, "http_request_duration_seconds_bucket", {
      route: "auth-sign-in",
      method: "POST",
      status: "302",
      le: "+Inf",
    }),
  ).toBe(1);

  // Cognito: the sign-in's call by operation and outcome, with its duration.
  const cognitoCalls = (outcome: string) =>
    valueOf(samples, "cognito_call_duration_seconds_count", { operation: "AdminInitiateAuth", outcome });
  // Two successes: the member client's sign-in, and the server-only client's that makes the session's server token.
  expect(cognitoCalls("success")).toBe(2);
  expect(cognitoCalls("invalidCredentials")).toBe(1);
  expect(
    valueOf(samples, "cognito_call_duration_seconds_sum", { operation: "AdminInitiateAuth", outcome: "success" }),
  ).toBeGreaterThan(0);

  // The database: every query timed, the embedded PGlite's one connection, nothing in flight between requests.
  expect(valueOf(samples, "db_query_duration_seconds_count", { outcome: "success" })).toBeGreaterThan(10);
  expect(valueOf(samples, "db_pool_max_connections", {})).toBe(1);
  expect(valueOf(samples, "db_queries_in_flight", {})).toBe(0);

  // The library's process metrics.
  expect(valueOf(samples, "process_cpu_user_seconds_total", {})).toBeGreaterThan(0);
  expect(samples.some((sample) => sample.name === "nodejs_eventloop_lag_p99_seconds")).toBe(true);

  // No label carries a path, an id or an address.
  for (const { labels } of samples) {
    for (const value of Object.values(labels)) {
      expect(value).not.toMatch(UUID);
      expect(value).not.toContain("/");
    }
  }
  expect(text).not.toContain(sub);
  expect(text).not.toContain(member.email);
  const routes = new Set(samples.flatMap((sample) => sample.labels.route ?? []));
  for (const route of routes) expect(route).toMatch(/^[a-z][a-z0-9.-]*$/);
});

test("rate-limit refusals are counted by policy, and mail by kind and outcome", async () => {
  const member = await createTestMember(main.standInPort, "metrics-limits");
  const wrong = { ...member, password: "not-the-password" };
  for (let attempt = 1; attempt <= SIGN_IN_LIMIT; attempt++) {
    expect((await signIn(main, wrong)).response.status).toBe(400);
  }
  expect((await signIn(main, wrong)).response.status).toBe(429);

  // A second browser's sign-in after a first one: the sign-in alert mail, sent by the outbox after the response.
  const other = await createTestMember(main.standInPort, "metrics-mail");
  await signedIn(main, other);
  await signedIn(main, other);

  const refusals = (samples: Sample[]) =>
    valueOf(samples, "rate_limit_refusals_total", { policy: "SIGN_IN_PER_ACCOUNT" });
  const alertsSent = (samples: Sample[]) =>
    valueOf(samples, "mail_deliveries_total", { kind: "sendSignInAlert", outcome: "sent" });
  await expect.poll(async () => alertsSent((await scrape()).samples)).toBe(1);
  const { samples } = await scrape();
  expect(refusals(samples)).toBe(1);
  expect(valueOf(samples, "http_request_duration_seconds_count", { route: "auth-sign-in", status: "429" })).toBe(1);
});

test("the account events' backlog is read from the database at each scrape, as seconds", async () => {
  // Its figure is proven on the database (tests/integration/events/endpoint-admin.db.test.ts); here, that each
  // scrape of a running server carries it.
  const { samples } = await scrape();
  const backlog = valueOf(samples, "account_event_oldest_undelivered_seconds", {});
  expect(backlog).toBeGreaterThanOrEqual(0);
  expect(Number.isFinite(backlog)).toBe(true);
});

test("the public port does not serve the metrics", async () => {
  for (const path of ["/metrics", "/metrics/", "/en/metrics/"]) {
    const response = await fetch(`${main.process.url}${path}`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain("http_request_duration_seconds");
  }
  // The metrics port serves nothing else.
  expect((await fetch(`http://127.0.0.1:${METRICS_PORT}/`)).status).toBe(404);
});

test("every page view carries a nonce of its own, the same in its CSP and in each of its scripts", async () => {
  /** The page's CSP nonce, checked against every nonce in its HTML. */
  const nonceOf = async (path: string) => {
    const response = await get(main, path);
    expect(response.status).toBe(200);
    const nonce = /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1] ?? "";
    const nonces = [...(await response.text()).matchAll(/nonce="([^"]*)"/g)].map((match) => match[1]);
    expect(nonces.length).toBeGreaterThan(1);
    expect(new Set(nonces)).toEqual(new Set([nonce]));
    return nonce;
  };
  expect(await nonceOf("/en/auth/forgot-password/")).not.toBe(await nonceOf("/en/auth/forgot-password/"));
});
