import {
  AdminInitiateAuthCommand,
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import http from "node:http";
import { Validator } from "@seriousme/openapi-schema-validator";
import { SignJWT, decodeProtectedHeader, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { API_ENDPOINTS } from "~/api/contract";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "../../support/stand-ins/provision-cognito";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * The member API from the outside, as a sibling service calls it: this test process is the sibling, the app runs
 * as its production build (preview mode) in another process, and every token comes from the Cognito stand-in
 * through the AWS SDK, exactly as a sibling service gets them. Covers every endpoint's success, validation error,
 * 401 and cross-member cases, bearer tokens (forged, alg:none, expired, revoked), CORS
 * for sibling origins only, the device limit under concurrent registrations, and the OpenAPI document.
 *
 * Two servers start together: the main one (DEVICE_LIMIT=2, one configured sibling origin) and one whose stand-in
 * issues 2-second access tokens, for the expired-token case.
 */

const DEVICE_LIMIT = 2;
const SIBLING_ORIGIN = "http://data.localhost:5000";
const SAFARI_UA =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15";

interface TestServer {
  process: ServerProcess;
  standIn: string;
  standInPort: number;
  url: string;
  sdk: { cognito: CognitoIdentityProviderClient; userPoolId: string; clientId: string };
}

let main: TestServer;
let shortTokens: TestServer;
/**
 * The short-lived tokens' lifetime: long enough that a token just issued is still valid when a loaded machine gets
 * round to using it (it carries whole seconds, so it has at least this less one), short enough to wait for.
 */
const SHORT_TOKEN_TTL_S = 6;

async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const process = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    DEVICE_LIMIT: String(DEVICE_LIMIT),
    SERVICE_ORIGIN_DATA: SIBLING_ORIGIN,
    ...env,
  });
  const { standInPort } = process;
  const standIn = `http://127.0.0.1:${standInPort}`;
  const cognito = createCognitoClient({ region: "ap-northeast-1", endpoint: standIn, userPoolId: "", clientId: "" });
  const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
  const userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id ?? "";
  const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
  const clientId =
    clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId ?? "";
  return { process, standIn, standInPort, url: process.url, sdk: { cognito, userPoolId, clientId } };
}

beforeAll(async () => {
  const started = await Promise.allSettled([
    startTestServer(),
    startTestServer({ STANDIN_ACCESS_TOKEN_TTL_S: String(SHORT_TOKEN_TTL_S) }),
  ]);
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(started.map((result) => (result.status === "fulfilled" ? result.value.process.stop() : null)));
    throw failed.reason;
  }
  [main, shortTokens] = started.map((result) => (result as PromiseFulfilledResult<TestServer>).value) as [
    TestServer,
    TestServer,
  ];
}, 90_000);

afterAll(async () => {
  for (const server of [main, shortTokens]) server?.sdk.cognito.destroy();
  await Promise.all([main?.process.stop(), shortTokens?.process.stop()]);
});

// ---- a sibling service's view ------------------------------------------------------------------------------------

interface Member {
  email: string;
  sub: string;
  accessToken: string;
  refreshToken: string;
}

/** A new confirmed member, signed in by the sibling with the SDK (the public client's USER_PASSWORD_AUTH). */
async function newMember(label: string, server = main): Promise<Member> {
  const { email } = await createTestMember(server.standInPort, label);
  return { email, ...(await signInWithSdk(email, server)) };
}

async function signInWithSdk(email: string, server = main, password = TEST_PASSWORD) {
  const output = await server.sdk.cognito.send(
    new InitiateAuthCommand({
      ClientId: server.sdk.clientId,
      AuthFlow: "USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  const accessToken = output.AuthenticationResult?.AccessToken ?? "";
  const refreshToken = output.AuthenticationResult?.RefreshToken ?? "";
  return { sub: claimsOf(accessToken).sub, accessToken, refreshToken };
}

/** A token's claims as the test reads them (unverified). */
function claimsOf(token: string): { sub: string; exp: number } {
  return JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString());
}

/** Another sign-in of the same member: a second browser with its own tokens. */
async function anotherSignIn(member: Member, server = main): Promise<Member> {
  return { email: member.email, ...(await signInWithSdk(member.email, server)) };
}

async function api(
  method: string,
  path: string,
  options: {
    token?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    server?: TestServer;
  } = {},
) {
  const server = options.server ?? main;
  const response = await fetch(`${server.url}${path}`, {
    method,
    redirect: "manual",
    headers: {
      "Accept-Language": "en",
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined || options.rawBody !== undefined ? { "Content-Type": "application/json" } : {}),
      ...options.headers,
    },
    body:
      method === "GET"
        ? undefined
        : (options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of every shape; each test asserts what it reads
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = { unparsed: text };
  }
  return { status: response.status, headers: response.headers, json };
}

function registerDevice(member: Member, key: string, headers: Record<string, string> = {}) {
  return api("POST", `/api/user-devices/${key}`, {
    token: member.accessToken,
    body: { refreshToken: member.refreshToken },
    headers,
  });
}

const PROFILE = {
  familyName: "Tanaka",
  givenName: "Hanako",
  birthYear: 1990,
  country: "JP",
  prefecture: "Tokyo",
  occupation: "architect",
  organization: "Tanaka Sekkei",
  preferredLanguage: "en",
  q1: "magazine",
  q2: ["content"],
  q3: ["web"],
};

/** The newest e-mail change link mailed to an address, from the server's dev mailbox page. */
async function emailUpdateTokenFor(email: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const html = await (await fetch(`${main.url}/__dev/mailbox/`)).text();
    const entry = html
      .split('<li class="mailbox-entry"')
      .slice(1)
      .find((candidate) => candidate.startsWith(' data-kind="mail"') && candidate.includes(`>${email}<`));
    const token = /\/email-update\/([A-Za-z0-9_-]+)\//.exec(entry ?? "")?.[1];
    if (token) return token;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no e-mail change link reached ${email}`);
}

// ---- tests -----------------------------------------------------------------------------------------------------

describe("bearer tokens", () => {
  test("missing, malformed, unsigned (alg:none) and forged tokens get 401 with the envelope", async () => {
    const member = await newMember("api-tokens");
    const [header, payload] = member.accessToken.split(".");
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${payload}.`;
    const { privateKey } = await generateKeyPair("RS256");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString());
    // Same claims, same key id, our own key: a forgery only the signature check can catch.
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: decodeProtectedHeader(member.accessToken).kid })
      .sign(privateKey);
    const wrongIssuer = await new SignJWT({ ...claims, iss: "https://cognito-idp.ap-northeast-1.amazonaws.com/other" })
      .setProtectedHeader({ alg: "RS256", kid: decodeProtectedHeader(member.accessToken).kid })
      .sign(privateKey);
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: crypto.randomUUID() })).toString("base64url")}.${member.accessToken.split(".")[2]}`;
    for (const authorization of [
      undefined,
      "Bearer",
      "Basic abc",
      `Bearer ${unsigned}`,
      `Bearer ${forged}`,
      `Bearer ${wrongIssuer}`,
      `Bearer ${tampered}`,
    ]) {
      const response = await api("GET", "/api/user-devices", {
        headers: authorization ? { Authorization: authorization } : {},
      });
      expect(response.status, authorization).toBe(401);
      expect(response.json.error).toMatchObject({ code: "unauthorized", requestId: expect.any(String) });
      expect(response.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="member-api"/);
    }
    expect((await api("GET", "/api/user-devices", { token: member.accessToken })).status).toBe(200);
  });

  test("an ID token is not an access token", async () => {
    const { email } = await createTestMember(main.standInPort, "api-id-token");
    const output = await main.sdk.cognito.send(
      new InitiateAuthCommand({
        ClientId: main.sdk.clientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD: TEST_PASSWORD },
      }),
    );
    expect((await api("GET", "/api/user-devices", { token: output.AuthenticationResult?.IdToken })).status).toBe(401);
  });

  test("an expired token gets 401; the caller refreshes once and the retry succeeds", async () => {
    const member = await newMember("api-expiry", shortTokens);
    expect((await api("GET", "/api/user-devices", { token: member.accessToken, server: shortTokens })).status).toBe(
      200,
    );
    // Until the token has expired for jose (exp ≤ now, whole seconds), and a little after.
    const expiresAt = claimsOf(member.accessToken).exp * 1000;
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(SHORT_TOKEN_TTL_S * 1000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 150));
    const expired = await api("GET", "/api/user-devices", { token: member.accessToken, server: shortTokens });
    expect(expired.status).toBe(401);
    expect(expired.json.error.code).toBe("unauthorized");
    const refreshed = await shortTokens.sdk.cognito.send(
      new InitiateAuthCommand({
        ClientId: shortTokens.sdk.clientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: member.refreshToken },
      }),
    );
    const retry = await api("GET", "/api/user-devices", {
      token: refreshed.AuthenticationResult?.AccessToken,
      server: shortTokens,
    });
    expect(retry.status).toBe(200);
  });

  test("a deactivated device's tokens are refused, while the member's other sign-ins keep working", async () => {
    const phone = await newMember("api-revoked");
    const laptop = await anotherSignIn(phone);
    expect((await registerDevice(phone, "phone-key")).status).toBe(201);
    expect((await registerDevice(laptop, "laptop-key")).status).toBe(201);
    const removed = await api("DELETE", "/api/user-devices/phone-key", { token: laptop.accessToken });
    expect(removed.status).toBe(200);
    expect(removed.json.devices.map((device: { key: string }) => device.key)).toEqual(["laptop-key"]);
    expect((await api("GET", "/api/user-devices", { token: phone.accessToken })).status).toBe(401);
    expect((await api("GET", "/api/user-devices", { token: laptop.accessToken })).status).toBe(200);
    // Its refresh token was revoked at Cognito too: the retry-after-refresh path ends in signing in again.
    await expect(
      main.sdk.cognito.send(
        new AdminInitiateAuthCommand({
          UserPoolId: main.sdk.userPoolId,
          ClientId: main.sdk.clientId,
          AuthFlow: "REFRESH_TOKEN_AUTH",
          AuthParameters: { REFRESH_TOKEN: phone.refreshToken },
        }),
      ),
    ).rejects.toMatchObject({ name: "NotAuthorizedException" });
  });
});

describe("responses", () => {
  test("JSON, never cached, in the Accept-Language locale; no trailing-slash redirect; unknown paths are JSON 404s", async () => {
    const member = await newMember("api-shape");
    const english = await api("POST", "/api/user-availability", { token: member.accessToken, body: { email: "nope" } });
    const japanese = await api("POST", "/api/user-availability", {
      token: member.accessToken,
      body: { email: "nope" },
      headers: { "Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5" },
    });
    expect(english.status).toBe(422);
    expect(english.json.error).toMatchObject({
      code: "validation_failed",
      message: "There is an error in your input",
      fields: { email: [expect.stringMatching(/e-mail/i)] },
    });
    expect(english.headers.get("Content-Language")).toBe("en");
    expect(japanese.json.error.code).toBe("validation_failed");
    expect(japanese.json.error.message).toBe("入力内容にエラーがあります");
    expect(japanese.headers.get("Content-Language")).toBe("ja");
    for (const response of [english, japanese]) {
      expect(response.headers.get("Cache-Control")).toBe("no-store");
      expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
    }
    const devices = await api("GET", "/api/user-devices", { token: member.accessToken });
    expect(devices.status).toBe(200);
    expect(devices.headers.get("Cache-Control")).toBe("no-store");

    const unknown = await api("GET", "/api/no-such-endpoint");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe("not_found");
    const wrongMethod = await api("GET", "/api/user-availability", { token: member.accessToken });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("Allow")).toBe("POST");
    const notJson = await api("POST", "/api/user-availability", { token: member.accessToken, rawBody: "{email:" });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.code).toBe("bad_request");
    const huge = await api("POST", "/api/user-availability", {
      token: member.accessToken,
      rawBody: JSON.stringify({ email: "a".repeat(40_000) }),
    });
    expect(huge.status).toBe(413);
    // Without a Content-Length (chunked) it is refused all the same (tests/unit/server/node-request.test.ts: read how far).
    const chunk = new TextEncoder().encode(" ".repeat(8 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const chunked = await fetch(`${main.url}/api/user-availability`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${member.accessToken}`,
        "Content-Type": "application/json",
        "Accept-Language": "en",
      },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.code).toBe("payload_too_large");
  });

  test("every answer has a request id and the API's security headers; only big answers are gzipped; HEAD; TRACE", async () => {
    const member = await newMember("api-headers");
    const devices = await fetch(`${main.url}/api/user-devices`, {
      method: "GET",
      headers: { Authorization: `Bearer ${member.accessToken}`, "Accept-Encoding": "gzip" },
    });
    expect(devices.status).toBe(200);
    expect(devices.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(devices.headers.get("Content-Security-Policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(devices.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(devices.headers.get("Referrer-Policy")).toBe("strict-origin-when-cross-origin");
    expect(devices.headers.get("Content-Encoding")).toBeNull();
    expect((await devices.json()).devices).toEqual([]);

    const document = await fetch(`${main.url}/api/openapi.json`, { headers: { "Accept-Encoding": "gzip" } });
    expect(document.headers.get("Content-Encoding")).toBe("gzip");
    expect((await document.json()).openapi).toMatch(/^3\.1\./);
    const plainDocument = await fetch(`${main.url}/api/openapi.json`, { headers: { "Accept-Encoding": "identity" } });
    expect(plainDocument.headers.get("Content-Encoding")).toBeNull();
    expect(Number(plainDocument.headers.get("Content-Length"))).toBe((await plainDocument.arrayBuffer()).byteLength);

    const head = await fetch(`${main.url}/api/user-devices`, {
      method: "HEAD",
      headers: { Authorization: `Bearer ${member.accessToken}` },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    // The pages' canonical-URL middleware does not apply: a trailing slash is no redirect (a POST could not follow it).
    const slash = await api("GET", "/api/user-devices/", { token: member.accessToken });
    expect(slash.status).toBe(200);

    // React Router matches paths in any case and decoded: what it takes for the API is the API's, with the API's
    // headers (a CSP that allows nothing), never a page's middleware (no session cookie, no redirect).
    for (const path of ["/API/user-devices", "/%61pi/user-devices"]) {
      const lookalike = await fetch(`${main.url}${path}`, {
        headers: { Authorization: `Bearer ${member.accessToken}` },
      });
      expect(lookalike.status, path).toBe(200);
      expect(lookalike.headers.get("Content-Type"), path).toMatch(/^application\/json/);
      expect(lookalike.headers.get("Content-Security-Policy"), path).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(lookalike.headers.get("Set-Cookie"), path).toBeNull();
    }

    // fetch() cannot send TRACE, so node:http does; the envelope still answers.
    const trace = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        `${main.url}/api/user-devices`,
        { method: "TRACE", headers: { "Accept-Language": "en" } },
        (response) => {
          let body = "";
          response.on("data", (chunk: Buffer) => (body += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on("error", reject);
      request.end();
    });
    expect(trace.status).toBe(405);
    expect(JSON.parse(trace.body).error).toMatchObject({
      code: "method_not_allowed",
      message: "This method is not allowed here",
    });
  });

  test("bad input anywhere is answered with a 4xx envelope, never a 5xx", async () => {
    const member = await newMember("api-fuzz");
    const bodies = [
      null,
      [],
      "text",
      42,
      { email: 5 },
      { email: ["a@b.jp"] },
      { userSub: { $ne: null } },
      { reason: "x".repeat(5000) },
      { a: { b: { c: { d: [] } } } },
      { refreshToken: 7 },
      { birthYear: "1e309" },
    ];
    const paths = API_ENDPOINTS.map((endpoint) => ({
      method: endpoint.method.toUpperCase(),
      path: endpoint.path.replace("{token}", "not-a-token").replace("{id}", "fuzz-key"),
    }));
    for (const { method, path } of paths) {
      for (const body of bodies) {
        const response = await api(method, path, { token: member.accessToken, body });
        expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(response.json.error?.code ?? "ok").toEqual(expect.any(String));
      }
    }
  });
});

describe("CORS", () => {
  test("a configured sibling origin may call from a browser; other origins are refused at the preflight", async () => {
    const allowed = await fetch(`${main.url}/api/user-devices`, {
      method: "OPTIONS",
      headers: {
        Origin: SIBLING_ORIGIN,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
      },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe(SIBLING_ORIGIN);
    expect(allowed.headers.get("Access-Control-Allow-Headers")).toMatch(/Authorization/);
    expect(allowed.headers.get("Access-Control-Allow-Methods")).toMatch(/DELETE/);
    expect(allowed.headers.get("Access-Control-Allow-Credentials")).toBeNull();

    const refused = await fetch(`${main.url}/api/user-devices`, {
      method: "OPTIONS",
      headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET", "Accept-Language": "en" },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect((await refused.json()).error.code).toBe("origin_not_allowed");

    // The real request: the sibling's origin is named; another origin's answer carries no permission to read it.
    const member = await newMember("api-cors");
    const fromSibling = await api("GET", "/api/user-devices", {
      token: member.accessToken,
      headers: { Origin: SIBLING_ORIGIN },
    });
    expect(fromSibling.headers.get("Access-Control-Allow-Origin")).toBe(SIBLING_ORIGIN);
    const fromElsewhere = await api("GET", "/api/user-devices", {
      token: member.accessToken,
      headers: { Origin: "https://evil.example" },
    });
    expect(fromElsewhere.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  test("a cross-site POST with a bearer token is not stopped by the pages' origin check (the API reads no cookies)", async () => {
    const member = await newMember("api-origin");
    const response = await api("POST", "/api/user-availability", {
      token: member.accessToken,
      body: { email: `free-${crypto.randomUUID()}@example.jp` },
      headers: { Origin: SIBLING_ORIGIN, "Sec-Fetch-Site": "same-site" },
    });
    expect(response.status).toBe(200);
  });
});

describe("POST /api/user-availability", () => {
  test("free, taken by another member, invalid, no token", async () => {
    const member = await newMember("api-avail");
    const other = await newMember("api-avail-other");
    const free = await api("POST", "/api/user-availability", {
      token: member.accessToken,
      body: { email: ` Free-${crypto.randomUUID()}@Example.jp ` },
    });
    expect(free.status).toBe(200);
    expect(free.json).toEqual({ email: expect.stringMatching(/^free-.*@example\.jp$/), available: true });
    const taken = await api("POST", "/api/user-availability", {
      token: member.accessToken,
      body: { email: other.email },
    });
    expect(taken.json).toEqual({ email: other.email, available: false });
    expect(
      (await api("POST", "/api/user-availability", { token: member.accessToken, body: {} })).json.error.fields.email,
    ).toHaveLength(1);
    expect((await api("POST", "/api/user-availability", { body: { email: other.email } })).status).toBe(401);
  });
});

describe("POST /api/refresh-user and /api/user-registration", () => {
  test("registration stores the profile (safe to repeat); refresh reads the member; another member's sub is 403", async () => {
    const member = await newMember("api-profile");
    const other = await newMember("api-profile-other");
    const invalid = await api("POST", "/api/user-registration", {
      token: member.accessToken,
      body: { ...PROFILE, birthYear: 1800, familyName: "", q2: ["other"], sub: other.sub },
    });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.json.error.fields).sort()).toEqual(["birthYear", "familyName", "q2Other"]);

    const registered = await api("POST", "/api/user-registration", {
      token: member.accessToken,
      body: { ...PROFILE, referrer: "data", groups: ["admin"] },
    });
    expect(registered.status).toBe(200);
    expect(registered.json.user).toMatchObject({
      sub: member.sub,
      email: member.email,
      profile: { familyName: "Tanaka", givenName: "Hanako", birthYear: 1990, preferredLanguage: "en" },
    });
    const repeated = await api("POST", "/api/user-registration", {
      token: member.accessToken,
      body: { ...PROFILE, givenName: "Hana" },
    });
    expect(repeated.json.user.profile.givenName).toBe("Hana");

    const refreshed = await api("POST", "/api/refresh-user", {
      token: member.accessToken,
      body: { userSub: member.sub },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.user).toMatchObject({
      sub: member.sub,
      email: member.email,
      emailVerified: true,
      profile: { givenName: "Hana" },
      twoStepVerification: false,
      // From the app's own list of the member's passkeys (tests/integration/account/passkeys.db.test.ts adds some).
      passkeyCount: 0,
    });
    // Unknown fields cannot smuggle anything in: the member is still who the token says.
    expect(refreshed.json.user.sub).not.toBe(other.sub);

    const crossMember = await api("POST", "/api/refresh-user", {
      token: member.accessToken,
      body: { userSub: other.sub },
    });
    expect(crossMember.status).toBe(403);
    expect(crossMember.json.error.code).toBe("forbidden");
    expect(
      (await api("POST", "/api/refresh-user", { token: member.accessToken, body: { userSub: "me" } })).status,
    ).toBe(422);
    expect((await api("POST", "/api/refresh-user", { body: { userSub: member.sub } })).status).toBe(401);
    expect((await api("POST", "/api/user-registration", { body: PROFILE })).status).toBe(401);
  });
});

describe("e-mail change", () => {
  test("request → link mailed → confirm with the token; reuse is expired; another member cannot use it", async () => {
    const member = await newMember("api-email");
    const other = await newMember("api-email-other");
    const newEmail = `api-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

    expect(
      (await api("POST", "/api/email-updates", { token: member.accessToken, body: { email: member.email } })).json.error
        .code,
    ).toBe("email_unchanged");
    const taken = await api("POST", "/api/email-updates", { token: member.accessToken, body: { email: other.email } });
    expect(taken.status).toBe(409);
    expect(taken.json.error.code).toBe("email_unavailable");
    expect((await api("POST", "/api/email-updates", { token: member.accessToken, body: { email: "x" } })).status).toBe(
      422,
    );
    expect((await api("POST", "/api/email-updates", { body: { email: newEmail } })).status).toBe(401);

    const requested = await api("POST", "/api/email-updates", { token: member.accessToken, body: { email: newEmail } });
    expect(requested.status).toBe(202);
    expect(new Date(requested.json.expiresAt).getTime()).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    const token = await emailUpdateTokenFor(newEmail);

    const stolen = await api("POST", `/api/email-updates/${token}`, { token: other.accessToken });
    expect(stolen.status).toBe(410);
    expect(stolen.json.error.code).toBe("email_update_expired");
    expect((await api("POST", `/api/email-updates/${token}`)).status).toBe(401);

    const confirmed = await api("POST", `/api/email-updates/${token}`, { token: member.accessToken });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json).toEqual({ email: newEmail });
    expect((await api("POST", `/api/email-updates/${token}`, { token: member.accessToken })).status).toBe(410);
    // The new address signs in.
    expect((await signInWithSdk(newEmail)).sub).toBe(member.sub);
  });
});

describe("POST /api/withdrawal-reasons", () => {
  test("validation, wrong password, then cancellation: tokens refused, the address can sign up again", async () => {
    const member = await newMember("api-cancel");
    const invalid = await api("POST", "/api/withdrawal-reasons", {
      token: member.accessToken,
      body: { reason: "other", agreeDisclaimer: false, password: "" },
    });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.json.error.fields).sort()).toEqual(["agreeDisclaimer", "password"]);
    const noDetail = await api("POST", "/api/withdrawal-reasons", {
      token: member.accessToken,
      body: { reason: "other", agreeDisclaimer: true, password: TEST_PASSWORD },
    });
    expect(noDetail.json.error.fields).toEqual({ detail: ["Please enter here"] });
    const wrong = await api("POST", "/api/withdrawal-reasons", {
      token: member.accessToken,
      body: { reason: "price", agreeDisclaimer: true, password: "not-the-password" },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.error).toMatchObject({ code: "password_mismatch", message: "The password does not match" });
    expect(
      (
        await api("POST", "/api/withdrawal-reasons", {
          body: { reason: "price", agreeDisclaimer: true, password: TEST_PASSWORD },
        })
      ).status,
    ).toBe(401);

    const cancelled = await api("POST", "/api/withdrawal-reasons", {
      token: member.accessToken,
      body: { reason: "other", detail: "Moving abroad", agreeDisclaimer: true, password: TEST_PASSWORD },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toEqual({ cancelled: true, endedSessions: 0 });
    expect((await api("GET", "/api/user-devices", { token: member.accessToken })).status).toBe(401);
    await main.sdk.cognito.send(
      new SignUpCommand({ ClientId: main.sdk.clientId, Username: member.email, Password: TEST_PASSWORD }),
    );
  });
});

describe("devices", () => {
  test("register (201, then 200 on repeat), list with the current one marked, bad input, foreign refresh tokens", async () => {
    const member = await newMember("api-devices");
    const other = await newMember("api-devices-other");
    const created = await registerDevice(member, "browser-one");
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      devices: [
        {
          key: "browser-one",
          name: expect.any(String),
          browser: expect.any(String),
          lastLoginAt: expect.any(String),
          current: true,
        },
      ],
      deviceLimit: DEVICE_LIMIT,
      overLimit: false,
    });
    expect((await registerDevice(member, "browser-one")).status).toBe(200);
    const listed = await api("GET", "/api/user-devices", { token: member.accessToken });
    expect(listed.json.devices).toHaveLength(1);

    expect(
      (await api("POST", "/api/user-devices/browser-two", { token: member.accessToken, body: {} })).json.error.fields,
    ).toEqual({
      refreshToken: [expect.any(String)],
    });
    expect(
      (
        await api("POST", "/api/user-devices/bad%20key!", {
          token: member.accessToken,
          body: { refreshToken: member.refreshToken },
        })
      ).status,
    ).toBe(422);
    const garbage = await api("POST", "/api/user-devices/browser-two", {
      token: member.accessToken,
      body: { refreshToken: "not-a-refresh-token" },
    });
    expect(garbage.json.error.code).toBe("invalid_refresh_token");
    // Member B's refresh token cannot be filed under member A.
    const foreign = await api("POST", "/api/user-devices/browser-two", {
      token: member.accessToken,
      body: { refreshToken: other.refreshToken },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.json.error.code).toBe("invalid_refresh_token");
    expect((await registerDevice({ ...member, accessToken: "" }, "browser-two")).status).toBe(401);
  });

  test("member A cannot deactivate member B's device: 404, and B's device stays", async () => {
    const a = await newMember("api-cross-a");
    const b = await newMember("api-cross-b");
    await registerDevice(b, "b-device");
    const attempt = await api("DELETE", "/api/user-devices/b-device", { token: a.accessToken });
    expect(attempt.status).toBe(404);
    expect(attempt.json.error.code).toBe("not_found");
    const stillThere = await api("GET", "/api/user-devices", { token: b.accessToken });
    expect(stillThere.json.devices.map((device: { key: string }) => device.key)).toEqual(["b-device"]);
    expect((await api("DELETE", "/api/user-devices/b-device")).status).toBe(401);
  });

  test("over the limit: 409 with the devices, nothing recorded; after deactivating one, registration succeeds", async () => {
    const first = await newMember("api-limit");
    const second = await anotherSignIn(first);
    const third = await anotherSignIn(first);
    await registerDevice(first, "one");
    await registerDevice(second, "two");
    const refused = await registerDevice(third, "three");
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("device_limit_exceeded");
    expect(refused.json.error.devices.devices.map((device: { key: string }) => device.key).sort()).toEqual([
      "one",
      "two",
    ]);
    expect((await api("DELETE", "/api/user-devices/one", { token: third.accessToken })).status).toBe(200);
    expect((await registerDevice(third, "three")).status).toBe(201);
  });

  test("the device limit holds under concurrent registrations: exactly the limit succeed", async () => {
    const member = await newMember("api-concurrent");
    const signIns = await Promise.all(Array.from({ length: 6 }, () => anotherSignIn(member)));
    const results = await Promise.all(signIns.map((signIn, index) => registerDevice(signIn, `parallel-${index}`)));
    expect(results.filter((result) => result.status === 201)).toHaveLength(DEVICE_LIMIT);
    expect(results.filter((result) => result.status === 409)).toHaveLength(6 - DEVICE_LIMIT);
    expect((await api("GET", "/api/user-devices", { token: member.accessToken })).json.devices).toHaveLength(
      DEVICE_LIMIT,
    );
  });

  test("a Safari that lost its key: registering again ends the outdated entry; DELETE /api/old-safari-device does it on its own", async () => {
    const member = await newMember("api-safari");
    const before = await anotherSignIn(member);
    const after = await anotherSignIn(member);
    const safari = { "User-Agent": SAFARI_UA };
    expect((await registerDevice(before, "safari-old-key", safari)).status).toBe(201);
    expect((await registerDevice(after, "safari-new-key", safari)).status).toBe(201);
    const listed = await api("GET", "/api/user-devices", { token: after.accessToken });
    expect(listed.json.devices.map((device: { key: string }) => device.key)).toEqual(["safari-new-key"]);
    expect(listed.json.devices[0]).toMatchObject({
      name: expect.stringMatching(/macOS/),
      browser: "Safari 17",
      current: true,
    });
    expect((await api("GET", "/api/user-devices", { token: before.accessToken })).status).toBe(401);

    // Nothing outdated left: the clean-up keeps the caller's own entry.
    const removal = await api("DELETE", "/api/old-safari-device", { token: after.accessToken, headers: safari });
    expect(removal).toMatchObject({ status: 200, json: { removed: 0 } });
    expect((await api("GET", "/api/user-devices", { token: after.accessToken })).json.devices).toHaveLength(1);
    expect((await api("DELETE", "/api/old-safari-device")).status).toBe(401);
  });
});

describe("OpenAPI", () => {
  test("/api/openapi.json is a valid OpenAPI 3.1 document listing every endpoint, each of which exists", async () => {
    const document = await api("GET", "/api/openapi.json");
    expect(document.status).toBe(200);
    expect(document.json.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(document.json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const documented = Object.entries(document.json.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const expected = [
      "POST /api/user-availability",
      "POST /api/refresh-user",
      "POST /api/user-registration",
      "POST /api/email-updates",
      "POST /api/email-updates/{token}",
      "POST /api/withdrawal-reasons",
      "GET /api/user-devices",
      "POST /api/user-devices/{id}",
      "DELETE /api/user-devices/{id}",
      "DELETE /api/old-safari-device",
      "GET /api/events",
      "GET /api/admin/users",
      "GET /api/admin/users/count",
      "GET /api/admin/user-pool",
      "GET /api/admin/audit-events",
      "GET /api/admin/users/{sub}",
      "POST /api/admin/users/{sub}/refresh",
      "POST /api/admin/email-updates/{sub}",
      "POST /api/admin/users/{sub}/sign-out",
      "POST /api/admin/users/{sub}/disable",
      "POST /api/admin/users/{sub}/enable",
      "POST /api/admin/users/{sub}/two-step-verification/disable",
      "GET /api/admin/users.csv",
      "GET /api/admin/downloads/withdrawal-reasons",
      "GET /api/admin/downloads/email-addresses",
      "POST /api/admin/csv-import/user-create",
      "GET /api/admin/csv-import/jobs/{id}",
      "POST /api/admin/csv-import/jobs/{id}/cancel",
      "GET /api/admin/csv-import/jobs/{id}/failed-rows.csv",
    ].sort();
    expect(documented).toEqual(expected);
    // A repeated registration answers 200 (see "register (201, then 200 on repeat)"), so the document says so.
    const registration = document.json.paths["/api/user-devices/{id}"].post.responses;
    expect(Object.keys(registration)).toEqual(expect.arrayContaining(["200", "201"]));
    // The calls that change how the account is reached need a recent sign-in, and the document says so.
    for (const path of ["/api/email-updates", "/api/user-devices/{id}"]) {
      expect(document.json.paths[path].post.responses["403"].description, path).toContain("reauthentication_required");
    }
    // Every documented operation is served: without a token it is a 401, not a 404 or 405.
    for (const operation of documented) {
      const [method, path] = operation.split(" ") as [string, string];
      const response = await api(
        method,
        path.replace("{token}", "t").replace("{id}", "k").replace("{sub}", crypto.randomUUID()),
        { body: {} },
      );
      expect(response.status, operation).toBe(401);
    }
  });
});
