import {
  AdminDisableUserCommand,
  AdminUserGlobalSignOutCommand,
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "~/server/embedded/provision-cognito";
import { type ServerProcess, startServerProcess } from "../support/server-process";
import { getRequestCounts, resetHarness, resetRequestCounts, setFault } from "../support/stand-in-faults";
import { TEST_PASSWORD, createTestMember } from "../support/test-members";

/**
 * Sessions over HTTP against the production build (preview mode) and its Cognito stand-in, whose harness counts
 * requests and injects faults (SECURITY.md items 1, 5, 7, 15; DESIGN.md "Sessions and devices"):
 *  - a signed-in page view costs no Cognito call, and keeps working while Cognito is down or slow;
 *  - only an expired access token costs one refresh; a refused refresh signs out, a throttled or failed one does not;
 *  - the cookies' attributes, a new session per sign-in, sign-out ending the session on the server;
 *  - no account enumeration at sign-in and sign-up; throttling and outages at sign-in; the device limit under
 *    concurrent sign-ins.
 *
 * Two servers, started together: the shared one (DEVICE_LIMIT=2, Cognito's 60-minute tokens) and one whose stand-in
 * issues 2-second access tokens, for the refresh tests.
 */

const SHORT_TOKEN_TTL_S = 2;
const DEVICE_LIMIT = 2;

interface TestServer {
  process: ServerProcess;
  /** The stand-in's endpoint (harness and SDK). */
  standIn: string;
  standInPort: number;
  /** The app's own origin: APP_ORIGIN names localhost, and posts must come from it. */
  origin: string;
}

let main: TestServer;
let shortTokens: TestServer;
/** SDK clients on each server's stand-in, with the pool and app client ids. */
const sdkClients = new Map<TestServer, { cognito: CognitoIdentityProviderClient; userPoolId: string; clientId: string }>();

async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "silent", ...env });
  return {
    process: server,
    standIn: `http://127.0.0.1:${server.standInPort}`,
    standInPort: server.standInPort,
    origin: `http://localhost:${new URL(server.url).port}`,
  };
}

beforeAll(async () => {
  const started = await Promise.allSettled([
    startTestServer({ DEVICE_LIMIT: String(DEVICE_LIMIT) }),
    startTestServer({ STANDIN_ACCESS_TOKEN_TTL_S: String(SHORT_TOKEN_TTL_S) }),
  ]);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(started.map((result) => (result.status === "fulfilled" ? result.value.process.stop() : null)));
    throw failed.reason;
  }
  [main, shortTokens] = started.map((result) => (result as PromiseFulfilledResult<TestServer>).value) as [TestServer, TestServer];
  // Readiness loads the pool's JWKS, which a process then keeps for 10 minutes (far longer than this file runs):
  // from here on, the stand-in's request counts are the page views' own.
  for (const server of [main, shortTokens]) expect((await fetch(`${server.process.url}/readyz/`)).status).toBe(200);
}, 90_000);

afterAll(async () => {
  for (const { cognito } of sdkClients.values()) cognito.destroy();
  await Promise.all([main?.process.stop(), shortTokens?.process.stop()]);
});

afterEach(async () => {
  await Promise.all([main && resetHarness(main.standIn), shortTokens && resetHarness(shortTokens.standIn)]);
});

/** An SDK client on this server's stand-in (as an administrator would use it), with its pool and app client. */
async function sdk(server: TestServer) {
  const known = sdkClients.get(server);
  if (known) return known;
  const cognito = createCognitoClient({ region: "ap-northeast-1", endpoint: server.standIn, userPoolId: "", clientId: "" });
  const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
  const userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id ?? "";
  const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
  const clientId = clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId ?? "";
  const created = { cognito, userPoolId, clientId };
  sdkClients.set(server, created);
  return created;
}

// ---- HTTP helpers ------------------------------------------------------------------------------------------------

/** A form post as a browser on our own origin sends it. */
function post(server: TestServer, path: string, fields: Record<string, string>, cookie = "") {
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: server.origin,
      "Sec-Fetch-Site": "same-origin",
      "Accept-Language": "ja",
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: new URLSearchParams(fields),
  });
}

function get(server: TestServer, path: string, cookie = "") {
  return fetch(`${server.origin}${path}`, {
    redirect: "manual",
    headers: { "Accept-Language": "ja", ...(cookie ? { Cookie: cookie } : {}) },
  });
}

function setCookieNamed(response: Response, name: string): string | undefined {
  return response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
}

const isCleared = (setCookie: string) => /;\s*Max-Age=0(;|$)/i.test(setCookie) || setCookie.split(";")[0]!.endsWith("=");

/** The Cookie header a browser sends after these responses: every cookie they set, minus the ones they cleared. */
function cookieHeader(...responses: Response[]): string {
  const jar = new Map<string, string>();
  for (const response of responses) {
    for (const setCookie of response.headers.getSetCookie()) {
      const pair = setCookie.split(";")[0]!;
      const name = pair.slice(0, pair.indexOf("="));
      if (isCleared(setCookie)) jar.delete(name);
      else jar.set(name, pair);
    }
  }
  return [...jar.values()].join("; ");
}

/** Replaces one cookie's pair in a Cookie header (a browser receiving a new Set-Cookie for it). */
function withCookie(header: string, setCookie: string): string {
  const pair = setCookie.split(";")[0]!;
  const name = pair.slice(0, pair.indexOf("="));
  return [...header.split("; ").filter((item) => item && !item.startsWith(`${name}=`)), pair].join("; ");
}

/** The session cookie's pair in a Cookie header. */
function sessionPair(header: string): string {
  return header.split("; ").find((item) => item.startsWith("id_session=")) ?? "";
}

/** What the signed session cookie carries: base64 JSON before the signature. */
function sessionValue(cookie: string): { sid: string; at: string } {
  const raw = decodeURIComponent(cookie.split(";")[0]!.slice("id_session=".length));
  const payload = raw.slice(0, raw.lastIndexOf("."));
  return JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as { sid: string; at: string };
}

/** The access token's expiry (epoch ms), read from the session cookie. */
function accessTokenExpiry(cookie: string): number {
  const [, payload = ""] = sessionValue(cookie).at.split(".");
  return (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp: number }).exp * 1000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the access token in this cookie has expired for jose (exp ≤ now, whole seconds), plus a margin. */
async function waitForExpiry(cookie: string) {
  const remaining = accessTokenExpiry(cookie) - Date.now();
  // The stand-in must have honoured STANDIN_ACCESS_TOKEN_TTL_S; Cognito's default would be 60 minutes.
  expect(remaining).toBeLessThanOrEqual(SHORT_TOKEN_TTL_S * 1000);
  await sleep(Math.max(0, remaining) + 150);
}

async function signIn(server: TestServer, member: { email: string; password: string }, cookie = "") {
  const response = await post(server, "/auth/sign-in/", { intent: "sign-in", ...member }, cookie);
  return { response, cookie: cookieHeader(response) };
}

/** Signs in and checks it worked: the Cookie header of the now signed-in browser. */
async function signedIn(server: TestServer, member: { email: string; password: string }): Promise<string> {
  const { response, cookie } = await signIn(server, member);
  expect(response.status).toBe(302);
  expect(sessionPair(cookie)).not.toBe("");
  return cookie;
}

// Pages carry their translations as data, so a message counts only where it is rendered.
const headingIn = (html: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
const errorsIn = (html: string) => [...html.matchAll(/class="error-list__item"[^>]*>([^<]*)</g)].map((match) => match[1]);
const profileEmailIn = (html: string) => /data-testid="email"[^>]*>([^<]*)</.exec(html)?.[1];

const LOGIN_FAILED = "ログインに失敗しました。メールアドレスとパスワードを確認してください";
const LOGIN_ATTEMPT_LIMIT = "ログイン試行回数の上限を超えました。数分後に再度お試しください";
const IDENTITY_UNAVAILABLE = "認証サービスが一時的に利用できません。時間をおいて再度お試しください";
const DEVICE_LIMIT_HEADING = "ログイン中のデバイスが上限に達しています";
const SIGNED_OUT_LOCATION = "/auth/sign-in/?to=my-profile";

/** Nothing that looks like a stack trace or an internal error name reaches the page. */
function expectNoInternals(html: string) {
  expect(html).not.toMatch(/\n\s+at\s/);
  expect(html).not.toMatch(/\(\/[^)]*\.(ts|js|mjs):\d+:\d+\)/);
  expect(html).not.toMatch(/InternalErrorException|TimeoutError|IdentityError/);
}

// ---- a, b: page views cost no Cognito call, and survive Cognito being down ---------------------------------------

describe("signed-in page views", () => {
  test("make zero requests to Cognito (the access token is checked locally, the JWKS is cached)", async () => {
    const member = await createTestMember(main.standInPort, "zero-calls");
    const cookie = await signedIn(main, member);
    // Warm-up: the process fetches the JWKS at most once, and may have done so already.
    expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
    await resetRequestCounts(main.standIn);

    for (let round = 0; round < 3; round++) {
      for (const path of ["/my/profile/", "/", "/en/my/profile/", "/auth/sign-in/"]) {
        const response = await get(main, path, cookie);
        expect(response.status, path).toBe(200);
        const html = await response.text();
        if (path.includes("/my/profile/")) expect(profileEmailIn(html)).toBe(member.email);
      }
    }
    expect(await getRequestCounts(main.standIn)).toEqual({ total: 0, byOperation: {} });
  });

  test.each([
    ["failing", { mode: "fail" } as const],
    ["slow", { mode: "slow", delayMs: 20_000 } as const],
  ])("keep working while Cognito is %s", async (_, fault) => {
    const member = await createTestMember(main.standInPort, "cognito-down");
    const cookie = await signedIn(main, member);
    // Every API operation answers 500, or only after 20 s (the JWKS is already cached, see above).
    await setFault(main.standIn, fault);
    for (let round = 0; round < 3; round++) {
      const started = Date.now();
      const response = await get(main, "/my/profile/", cookie);
      expect(response.status).toBe(200);
      expect(profileEmailIn(await response.text())).toBe(member.email);
      expect(setCookieNamed(response, "id_session")).toBeUndefined();
      // Nothing waited on Cognito: one call would have taken the SDK's 5 s time-out at least.
      expect(Date.now() - started).toBeLessThan(4_000);
    }
  });
});

// ---- c: cookie attributes -----------------------------------------------------------------------------------------

test("sign-in cookies are HttpOnly, SameSite=Lax, Path=/, host-only on plain http, 30 days for the session", async () => {
  const member = await createTestMember(main.standInPort, "cookies");
  const { response } = await signIn(main, member);
  expect(response.status).toBe(302);

  const session = setCookieNamed(response, "id_session") ?? "";
  const device = setCookieNamed(response, "id_device") ?? "";
  for (const cookie of [session, device]) {
    expect(cookie).not.toBe("");
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Lax(;|$)/);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    // The test server is plain http on localhost: no Secure flag, no __Secure- prefix, no shared domain.
    expect(cookie).not.toMatch(/; Secure(;|$)/i);
    expect(cookie).not.toMatch(/Domain=/i);
  }
  expect(session).toMatch(/; Max-Age=2592000(;|$)/);
  const deviceMaxAge = Number(/; Max-Age=(\d+)/.exec(device)?.[1]);
  expect(deviceMaxAge).toBeGreaterThan(365 * 24 * 60 * 60);
  expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith("__Secure-"))).toBe(false);
});

// ---- d: a new session per sign-in; sign-out ends it on the server ------------------------------------------------

describe("sessions", () => {
  test("sign-out ends the session on the server: a replayed cookie gets signed-out treatment", async () => {
    const member = await createTestMember(main.standInPort, "sign-out");
    const cookie = await signedIn(main, member);
    expect((await get(main, "/my/profile/", cookie)).status).toBe(200);

    const signOut = await post(main, "/auth/sign-out/", {}, cookie);
    expect(signOut.status).toBe(302);
    expect(isCleared(setCookieNamed(signOut, "id_session") ?? "")).toBe(true);

    // The browser forgot the cookie; an attacker who captured it replays it.
    const replayed = await get(main, "/my/profile/", cookie);
    expect(replayed.status).toBe(302);
    expect(replayed.headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
    expect(isCleared(setCookieNamed(replayed, "id_session") ?? "")).toBe(true);
    const home = await (await get(main, "/", cookie)).text();
    expect(home).not.toContain(member.email);
  });

  test("every sign-in yields a new session id; the same browser's previous session ends", async () => {
    const member = await createTestMember(main.standInPort, "new-session");
    const first = await signedIn(main, member);
    // The same browser (its device cookie) signs in again, then another browser signs in.
    const again = await signIn(main, member, first);
    expect(again.response.status).toBe(302);
    const second = withCookie(first, setCookieNamed(again.response, "id_session")!);
    const other = await signedIn(main, member);

    const sids = [first, second, other].map((cookie) => sessionValue(sessionPair(cookie)).sid);
    expect(new Set(sids).size).toBe(3);
    expect(sessionPair(second)).not.toBe(sessionPair(first));

    const replayedFirst = await get(main, "/my/profile/", first);
    expect(replayedFirst.status).toBe(302);
    expect(replayedFirst.headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
    for (const cookie of [second, other]) expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
  });
});

// ---- e: an expired access token costs exactly one refresh --------------------------------------------------------

describe("expired access tokens", () => {
  test("cost exactly one refresh; the page works and a fresh session cookie is set", async () => {
    const member = await createTestMember(shortTokens.standInPort, "refresh");
    const cookie = await signedIn(shortTokens, member);
    await waitForExpiry(sessionPair(cookie));
    await resetRequestCounts(shortTokens.standIn);

    const response = await get(shortTokens, "/my/profile/", cookie);
    expect(response.status).toBe(200);
    expect(profileEmailIn(await response.text())).toBe(member.email);
    expect(await getRequestCounts(shortTokens.standIn)).toEqual({ total: 1, byOperation: { AdminInitiateAuth: 1 } });

    const refreshed = setCookieNamed(response, "id_session") ?? "";
    expect(refreshed).toMatch(/; Max-Age=2592000(;|$)/);
    expect(refreshed).toMatch(/; HttpOnly(;|$)/);
    expect(sessionValue(refreshed).sid).toBe(sessionValue(sessionPair(cookie)).sid);
    expect(sessionValue(refreshed).at).not.toBe(sessionValue(sessionPair(cookie)).at);
    expect(accessTokenExpiry(refreshed)).toBeGreaterThan(accessTokenExpiry(sessionPair(cookie)));
  });

  test("a revoked refresh token (global sign-out) signs the browser out and clears the session cookie", async () => {
    const member = await createTestMember(shortTokens.standInPort, "revoked");
    const cookie = await signedIn(shortTokens, member);
    await waitForExpiry(sessionPair(cookie));
    const { cognito, userPoolId } = await sdk(shortTokens);
    await cognito.send(new AdminUserGlobalSignOutCommand({ UserPoolId: userPoolId, Username: member.email }));
    await resetRequestCounts(shortTokens.standIn);

    const response = await get(shortTokens, "/my/profile/", cookie);
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
    expect(isCleared(setCookieNamed(response, "id_session") ?? "")).toBe(true);
    expect(await getRequestCounts(shortTokens.standIn)).toEqual({ total: 1, byOperation: { AdminInitiateAuth: 1 } });

    // The session row is ended: replaying the cookie costs no further Cognito call.
    await resetRequestCounts(shortTokens.standIn);
    expect((await get(shortTokens, "/my/profile/", cookie)).headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
    expect((await getRequestCounts(shortTokens.standIn)).total).toBe(0);
  });

  test.each([
    ["throttled (TooManyRequestsException)", { mode: "throttle" } as const],
    ["throttled (LimitExceededException)", { mode: "throttle", error: "LimitExceededException" } as const],
    ["failing", { mode: "fail" } as const],
  ])("a refresh that Cognito %s keeps the session for later", async (_, fault) => {
    const member = await createTestMember(shortTokens.standInPort, "refresh-fault");
    const cookie = await signedIn(shortTokens, member);
    await waitForExpiry(sessionPair(cookie));

    await setFault(shortTokens.standIn, { ...fault, operations: ["AdminInitiateAuth"] });
    const during = await get(shortTokens, "/my/profile/", cookie);
    // The session cannot be confirmed now. Today the request is served as anonymous (the members-only page
    // sends it to sign-in); serving it from the expired token would be fine too. Never a 5xx, and never the
    // session cookie cleared or the session ended: Cognito being busy says nothing about the refresh token.
    expect([200, 302]).toContain(during.status);
    if (during.status === 302) expect(during.headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
    expect(setCookieNamed(during, "id_session")).toBeUndefined();

    await resetHarness(shortTokens.standIn);
    const after = await get(shortTokens, "/my/profile/", cookie);
    expect(after.status).toBe(200);
    expect(profileEmailIn(await after.text())).toBe(member.email);
    expect(setCookieNamed(after, "id_session")).toBeDefined();
  });
});

describe("a password change", () => {
  /** A sibling service's sign-in of the member (the SDK's USER_PASSWORD_AUTH), never registered as a device. */
  async function siblingSignIn(server: TestServer, member: { email: string; password: string }) {
    const { cognito, clientId } = await sdk(server);
    const output = await cognito.send(
      new InitiateAuthCommand({
        ClientId: clientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: member.email, PASSWORD: member.password },
      }),
    );
    return output.AuthenticationResult ?? {};
  }

  test("signs out every other sign-in, a sibling's that no device records included; this browser stays", async () => {
    const member = await createTestMember(shortTokens.standInPort, "password-global");
    const cookie = await signedIn(shortTokens, member);
    // A sibling service signs the same member in and has not registered the device with us yet.
    const sibling = await siblingSignIn(shortTokens, member);
    const { cognito, clientId } = await sdk(shortTokens);
    const refreshSibling = () =>
      cognito.send(
        new InitiateAuthCommand({
          ClientId: clientId,
          AuthFlow: "REFRESH_TOKEN_AUTH",
          AuthParameters: { REFRESH_TOKEN: sibling.RefreshToken ?? "" },
        }),
      );
    expect((await refreshSibling()).AuthenticationResult?.AccessToken).toBeTruthy();

    const newPassword = `New-${crypto.randomUUID()}`;
    const changed = await post(shortTokens, "/my/password/edit/", { currentPassword: member.password, newPassword }, cookie);
    expect(changed.status).toBe(302);
    expect(changed.headers.get("Location")).toBe("/my/profile/");

    // Cognito keeps refresh tokens through a password change; ours signs them all out.
    await expect(refreshSibling()).rejects.toThrow();
    // This browser got a new sign-in: it stays signed in, also when its access token has to be refreshed.
    const renewed = setCookieNamed(changed, "id_session") ?? "";
    expect(sessionValue(renewed).sid).toBe(sessionValue(sessionPair(cookie)).sid);
    const browser = withCookie(cookie, renewed);
    await waitForExpiry(sessionPair(browser));
    const page = await get(shortTokens, "/my/profile/", browser);
    expect(page.status).toBe(200);
    expect(profileEmailIn(await page.text())).toBe(member.email);
  });

  test("makes the member API refuse access tokens that sign-ins no device records got before it", async () => {
    const member = await createTestMember(main.standInPort, "password-api");
    const cookie = await signedIn(main, member);
    const sibling = await siblingSignIn(main, member);
    const bearer = { Authorization: `Bearer ${sibling.AccessToken ?? ""}` };
    const listDevices = () => fetch(`${main.process.url}/api/user-devices`, { headers: bearer });
    expect((await listDevices()).status).toBe(200);
    // Tokens carry whole seconds, and one of the sign-out's own second counts as issued after it.
    await sleep(1_100);

    const newPassword = `New-${crypto.randomUUID()}`;
    const changed = await post(main, "/my/password/edit/", { currentPassword: member.password, newPassword }, cookie);
    expect(changed.status).toBe(302);
    // Its signature still holds for the rest of the hour; the API refuses it all the same.
    expect((await listDevices()).status).toBe(401);
    // This browser's own pages are not affected.
    expect((await get(main, "/my/profile/", withCookie(cookie, setCookieNamed(changed, "id_session") ?? ""))).status).toBe(200);
  });
});

// ---- f: no account enumeration -----------------------------------------------------------------------------------

/** The page with the echoed address and the per-response nonce taken out. */
function normalized(html: string, email: string): string {
  return html.replaceAll(email, "<EMAIL>").replace(/nonce="[^"]*"/g, 'nonce=""');
}

const cookieNames = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.slice(0, cookie.indexOf("=")))
    .sort();

describe("no account enumeration", () => {
  test("sign-in: wrong password, unknown, unconfirmed and disabled users read the same", async () => {
    const { cognito, userPoolId, clientId } = await sdk(main);
    const confirmed = await createTestMember(main.standInPort, "enum-wrong");
    const disabled = await createTestMember(main.standInPort, "enum-disabled");
    await cognito.send(new AdminDisableUserCommand({ UserPoolId: userPoolId, Username: disabled.email }));
    const unconfirmed = `enum-unconfirmed-${crypto.randomUUID().slice(0, 8)}@example.jp`;
    await cognito.send(
      new SignUpCommand({
        ClientId: clientId,
        Username: unconfirmed,
        Password: TEST_PASSWORD,
        UserAttributes: [{ Name: "email", Value: unconfirmed }],
      }),
    );

    const attempts = [
      { label: "wrong password", email: confirmed.email, password: "not-the-password" },
      { label: "unknown e-mail", email: `enum-nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`, password: TEST_PASSWORD },
      // The right password: a wrong one would be refused before the account's state is even looked at.
      { label: "unconfirmed", email: unconfirmed, password: TEST_PASSWORD },
      { label: "disabled", email: disabled.email, password: TEST_PASSWORD },
    ];
    const results = [];
    for (const attempt of attempts) {
      const { response } = await signIn(main, { email: attempt.email, password: attempt.password });
      const html = await response.text();
      expect(errorsIn(html), attempt.label).toEqual([LOGIN_FAILED]);
      expect(html, attempt.label).toContain(`value="${attempt.email}"`);
      results.push({
        label: attempt.label,
        status: response.status,
        cookies: cookieNames(response),
        page: normalized(html, attempt.email),
      });
    }
    const [reference, ...others] = results;
    for (const other of others) {
      expect(other.status, `${other.label} vs ${reference!.label}`).toBe(reference!.status);
      expect(other.cookies, `${other.label} vs ${reference!.label}`).toEqual(reference!.cookies);
      expect(other.page, `${other.label} vs ${reference!.label}`).toBe(reference!.page);
    }
    expect(reference!.status).toBe(400);
  });

  test("sign-up step 1: a new address and a confirmed one get the same status, redirect and next page", async () => {
    const existing = await createTestMember(main.standInPort, "enum-existing");
    const fresh = `enum-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
    const results = [];
    for (const email of [fresh, existing.email]) {
      const response = await post(main, "/auth/sign-up/", {
        email,
        password: "another-long-password",
        agreeIdTerms: "on",
        agreeDataTerms: "on",
        agreePrivacy: "on",
      });
      const location = response.headers.get("Location");
      const next = await get(main, location ?? "/auth/sign-up/", cookieHeader(response));
      const html = await next.text();
      expect(html, email).toContain(email);
      results.push({
        status: response.status,
        location,
        cookies: cookieNames(response),
        nextStatus: next.status,
        nextPage: normalized(html, email),
      });
    }
    expect(results[0]!.status).toBe(302);
    expect(results[0]!.location).toBe("/auth/sign-up/");
    expect(results[1]).toEqual(results[0]);
  });
});

// ---- g: throttling and outages at sign-in ------------------------------------------------------------------------

describe("sign-in while Cognito throttles or is down", () => {
  test("throttled: the attempt-limit message, 429, no session", async () => {
    const member = await createTestMember(main.standInPort, "throttled");
    await setFault(main.standIn, { mode: "throttle", operations: ["AdminInitiateAuth"] });
    const { response } = await signIn(main, member);
    expect(response.status).toBe(429);
    const html = await response.text();
    expect(errorsIn(html)).toEqual([LOGIN_ATTEMPT_LIMIT]);
    expect(html).not.toContain(member.password);
    expect(setCookieNamed(response, "id_session")).toBeUndefined();
    expectNoInternals(html);
  });

  test("failing: temporarily unavailable, 503, no stack trace", async () => {
    const member = await createTestMember(main.standInPort, "failing");
    await setFault(main.standIn, { mode: "fail", operations: ["AdminInitiateAuth"] });
    const { response } = await signIn(main, member);
    expect(response.status).toBe(503);
    const html = await response.text();
    expect(errorsIn(html)).toEqual([IDENTITY_UNAVAILABLE]);
    expect(setCookieNamed(response, "id_session")).toBeUndefined();
    expectNoInternals(html);
  });

  test("slower than the deadline: temporarily unavailable within the deadline, no session", { timeout: 45_000 }, async () => {
    const member = await createTestMember(main.standInPort, "slow");
    await setFault(main.standIn, { mode: "slow", delayMs: 20_000, operations: ["AdminInitiateAuth"] });
    const started = Date.now();
    const { response } = await signIn(main, member);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(503);
    const html = await response.text();
    expect(errorsIn(html)).toEqual([IDENTITY_UNAVAILABLE]);
    expect(setCookieNamed(response, "id_session")).toBeUndefined();
    expectNoInternals(html);
    // The call deadline is 8 s (the SDK's per-attempt time-out 5 s); well before the stand-in's 20 s.
    expect(elapsed).toBeLessThan(12_000);
  });
});

// ---- h: the device limit under concurrent sign-ins ---------------------------------------------------------------

test("concurrent sign-ins from six browsers at a device limit of two: exactly two sessions", async () => {
  const member = await createTestMember(main.standInPort, "concurrent");
  const attempts = await Promise.all(Array.from({ length: 6 }, () => signIn(main, member)));

  const active = attempts.filter(({ cookie }) => sessionPair(cookie) !== "");
  const held = attempts.filter(({ cookie }) => sessionPair(cookie) === "");
  expect(active).toHaveLength(DEVICE_LIMIT);
  expect(held).toHaveLength(6 - DEVICE_LIMIT);
  for (const { response } of attempts) expect(response.status).toBe(302);

  for (const { response, cookie } of held) {
    expect(response.headers.get("Location")).toBe("/auth/sign-in/");
    const screen = await get(main, "/auth/sign-in/", cookie);
    expect(screen.status).toBe(200);
    const html = await screen.text();
    expect(headingIn(html)).toBe(DEVICE_LIMIT_HEADING);
    expect(html).toMatch(/data-testid="device-count"[^>]*>[^<]*2台</);
  }
  for (const { cookie } of active) expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
});

// ---- issue 9 items 5-6: sign-out and "continue login" while Cognito is down --------------------------------------

test("sign-out ends the session on the server even when its expired access token cannot be refreshed (Cognito down)", async () => {
  const member = await createTestMember(shortTokens.standInPort, "sign-out-down");
  const cookie = await signedIn(shortTokens, member);
  await waitForExpiry(sessionPair(cookie));
  // The member cannot be confirmed now: the refresh fails, and so does the revocation.
  await setFault(shortTokens.standIn, { mode: "fail", operations: ["AdminInitiateAuth", "RevokeToken"] });
  const signOut = await post(shortTokens, "/auth/sign-out/", {}, cookie);
  expect(signOut.status).toBe(302);
  expect(isCleared(setCookieNamed(signOut, "id_session") ?? "")).toBe(true);

  // Cognito is back: the captured cookie would refresh again if its session row had survived.
  await resetHarness(shortTokens.standIn);
  const replayed = await get(shortTokens, "/my/profile/", cookie);
  expect(replayed.status).toBe(302);
  expect(replayed.headers.get("Location")).toBe(SIGNED_OUT_LOCATION);
});

test("'Continue login' with Cognito down: the unavailable message, the sign-in still held, and no device slot taken", async () => {
  const member = await createTestMember(main.standInPort, "continue-down");
  const first = await signedIn(main, member);
  await signedIn(main, member);
  const held = await signIn(main, member);
  expect(sessionPair(held.cookie)).toBe("");
  // A slot frees up (the first browser signs out), then Cognito goes down before "Continue login".
  expect((await post(main, "/auth/sign-out/", {}, first)).status).toBe(302);
  await setFault(main.standIn, { mode: "fail", operations: ["AdminInitiateAuth"] });

  const continued = await post(main, "/auth/sign-in/", { intent: "continue" }, held.cookie);
  expect(continued.status).toBe(302);
  expect(continued.headers.get("Location")).toBe("/auth/sign-in/");
  expect(setCookieNamed(continued, "id_session")).toBeUndefined();
  const screen = await get(main, "/auth/sign-in/", cookieHeader(held.response, continued));
  const html = await screen.text();
  expect(headingIn(html)).toBe(DEVICE_LIMIT_HEADING);
  expect(html).toContain(IDENTITY_UNAVAILABLE);
  expectNoInternals(html);

  // The freed slot is still free: another browser signs in straight away.
  await resetHarness(main.standIn);
  const other = await signIn(main, member);
  expect(sessionPair(other.cookie)).not.toBe("");
});
