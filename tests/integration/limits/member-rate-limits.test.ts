import { afterAll, beforeAll, expect, test } from "vitest";
import enApi from "../../../locales/en/api.json";
import jaToasts from "../../../locales/ja/toasts.json";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { cookieHeader } from "../../support/cookie-jar";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { postForm } from "../../support/session-http";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * What a signed-in member does that calls Cognito or sends mail is limited per member and per client IP, on the pages
 * and in the API alike, so no member can throttle everyone's sign-in (docs/security.md): the production build over
 * HTTP, small limits from the RATE_LIMIT_* variables. The server sits behind one trusted proxy, so each test is its own
 * client by the address the proxy forwards, and no test shares a per-IP count with another. LOG_LEVEL=warn: the
 * refusals' log lines are read back to check they carry the request id.
 */
const PER_MEMBER = 2;
const PER_IP = 3;
const LIMITS = Object.fromEntries(
  ["PROFILE_UPDATE", "EMAIL_CHANGE", "MEMBER_REFRESH", "DEVICE_REGISTRATION"].flatMap((policy) => [
    [`RATE_LIMIT_${policy}_PER_MEMBER`, String(PER_MEMBER)],
    [`RATE_LIMIT_${policy}_PER_IP`, String(PER_IP)],
  ]),
);

let server: ServerProcess;
let sdk: StandInSdk;

beforeAll(async () => {
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    TRUST_PROXY_HOPS: "1",
    ...LIMITS,
  });
  sdk = await connectToStandIn(server.standInPort);
}, 180_000);

afterAll(async () => {
  sdk?.destroy();
  await server?.stop();
});

/** A client of its own (a random /64 of the documentation range), as the trusted proxy forwards its address. */
const someIp = () => {
  const [a, b] = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${a!.toString(16)}:${b!.toString(16)}::1`;
};

function post(path: string, fields: Record<string, string>, options: { ip: string; cookie?: string }) {
  return postForm(`${server.url}${path}`, fields, {
    cookie: options.cookie,
    headers: { "X-Forwarded-For": options.ip },
  });
}

/** A new member signed in through the sign-in page: the browser's Cookie header. */
async function signedInBrowser(
  label: string,
  ip: string,
  member?: { email: string; password: string },
): Promise<string> {
  member ??= await createTestMember(server.standInPort, label);
  const response = await post("/auth/sign-in/", { intent: "sign-in", ...member }, { ip });
  expect(response.status).toBe(302);
  return cookieHeader(response);
}

/** A member (new unless given) signed in by a sibling service with the SDK: its tokens. */
async function apiMember(label: string, email?: string) {
  email ??= (await createTestMember(server.standInPort, label)).email;
  return { email, ...(await bearerTokensFor(sdk, email, TEST_PASSWORD)) };
}

async function api(path: string, token: string, body: unknown, ip: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: {
      "Accept-Language": "en",
      Authorization: `Bearer ${token}`,
      "Content-Type": "application/json",
      "X-Forwarded-For": ip,
    },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of every shape; each test asserts what it reads
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

const errorsIn = (html: string) =>
  [...html.matchAll(/class="error-list__item"[^>]*>([^<]*)</g)].map((match) => match[1]);

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
const PROFILE_BODY = { ...PROFILE_FORM, birthYear: 1990, q1: "magazine", q2: ["content"], q3: ["web"] };

/** The server's log lines (JSON) with this message. */
const logLines = (message: string) =>
  server
    .stdout()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === message);

/** Whether the server logs a line with this message and request id (its output arrives apart from the answer). */
async function loggedWithRequestId(message: string, requestId: string | null): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (logLines(message).some((line) => line.requestId === requestId)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

test("the profile edit after the per-member limit is refused with the attempt-limit message; another member is not", async () => {
  const ip = someIp();
  const browser = await signedInBrowser("profile-limited", ip);
  for (let edit = 0; edit < PER_MEMBER; edit++) {
    expect((await post("/my/profile/edit/", PROFILE_FORM, { ip: someIp(), cookie: browser })).status).toBe(302);
  }
  // From yet another address: the member's own count holds wherever the member is.
  const refused = await post("/my/profile/edit/", PROFILE_FORM, { ip: someIp(), cookie: browser });
  expect(refused.status).toBe(429);
  const page = await refused.text();
  expect(errorsIn(page)).toEqual([jaToasts.attemptLimitExceeded]);
  expect(page).toContain('value="Tanaka Sekkei"');
  // The refusal's warning names the request it belongs to.
  const requestId = refused.headers.get("X-Request-Id");
  expect(await loggedWithRequestId("rate limit reached", requestId)).toBe(true);

  const other = await signedInBrowser("profile-other", ip);
  expect((await post("/my/profile/edit/", PROFILE_FORM, { ip, cookie: other })).status).toBe(302);
});

test("the e-mail change page is limited per member, and the API's e-mail updates count on the same counter", async () => {
  const member = await createTestMember(server.standInPort, "email-limited");
  const browser = await signedInBrowser("", someIp(), member);
  for (let change = 0; change < PER_MEMBER; change++) {
    const requested = await post(
      "/my/email/edit/",
      { email: `new-${crypto.randomUUID().slice(0, 8)}@example.jp` },
      { ip: someIp(), cookie: browser },
    );
    expect(requested.status).toBe(302);
    expect(requested.headers.get("Location")).toMatch(/\/my\/email\/edit\/\?sent$/);
  }
  const probe = `victim-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const refused = await post("/my/email/edit/", { email: probe }, { ip: someIp(), cookie: browser });
  expect(refused.status).toBe(429);
  expect(errorsIn(await refused.text())).toEqual([jaToasts.attemptLimitExceeded]);
  const mailbox = await (await fetch(`${server.url}/__dev/mailbox/`)).text();
  expect(mailbox).not.toContain(probe);
  // The same member through a sibling service's API: the same count, already spent.
  const tokens = await apiMember("", member.email);
  const viaApi = await api("/api/email-updates", tokens.accessToken, { email: probe }, someIp());
  expect(viaApi.status).toBe(429);
  expect(viaApi.json.error.code).toBe("rate_limited");

  const other = await signedInBrowser("email-other", someIp());
  expect(
    (
      await post(
        "/my/email/edit/",
        { email: `new-${crypto.randomUUID().slice(0, 8)}@example.jp` },
        { ip: someIp(), cookie: other },
      )
    ).status,
  ).toBe(302);
});

test("the N+1th API call of one member is 429 with Retry-After and the envelope, for every limited endpoint", async () => {
  const calls: [string, (member: Awaited<ReturnType<typeof apiMember>>) => [string, unknown]][] = [
    ["refresh-user", (member) => ["/api/refresh-user", { userSub: member.sub }]],
    ["user-registration", () => ["/api/user-registration", PROFILE_BODY]],
    ["email-updates", () => ["/api/email-updates", { email: `new-${crypto.randomUUID().slice(0, 8)}@example.jp` }]],
    ["device registration", (member) => ["/api/user-devices/device-key-1", { refreshToken: member.refreshToken }]],
  ];
  for (const [name, call] of calls) {
    const member = await apiMember(`api-limited-${name.replace(/\W/g, "")}`);
    for (let attempt = 0; attempt < PER_MEMBER; attempt++) {
      const [path, body] = call(member);
      expect((await api(path, member.accessToken, body, someIp())).status, name).toBeLessThan(300);
    }
    const [path, body] = call(member);
    const refused = await api(path, member.accessToken, body, someIp());
    expect(refused.status, name).toBe(429);
    expect(refused.json.error).toMatchObject({ code: "rate_limited", message: enApi.errors.rate_limited });
    expect(Number(refused.headers.get("Retry-After")), name).toBeGreaterThan(0);
    // The refusal's warning carries the request id the caller was given.
    expect(await loggedWithRequestId("rate limit reached", refused.json.error.requestId), name).toBe(true);

    const other = await apiMember("api-other");
    const [otherPath, otherBody] = call(other);
    expect(
      (await api(otherPath, other.accessToken, otherBody, someIp())).status,
      `${name}, another member`,
    ).toBeLessThan(300);
  }
});

test("the API cancellation's address look-up counts with the member's Cognito reads: over the limit it is 429 and nothing changes", async () => {
  const member = await apiMember("api-withdrawal-limited");
  for (let attempt = 0; attempt < PER_MEMBER; attempt++) {
    expect((await api("/api/refresh-user", member.accessToken, { userSub: member.sub }, someIp())).status).toBe(200);
  }
  const body = { reason: "price", agreeDisclaimer: true, password: TEST_PASSWORD };
  const refused = await api("/api/withdrawal-reasons", member.accessToken, body, someIp());
  expect(refused.status).toBe(429);
  expect(refused.json.error).toMatchObject({ code: "rate_limited" });
  // Not cancelled: the member's token is still accepted (a cancelled member's is 401).
  expect((await api("/api/user-availability", member.accessToken, { email: "x@example.jp" }, someIp())).status).toBe(
    200,
  );
});

test("the per-IP limit holds across members, on the pages and in the API", async () => {
  const ip = someIp();
  const browsers = [];
  for (let index = 0; index <= PER_IP; index++) browsers.push(await signedInBrowser(`ip-limited-${index}`, someIp()));
  const statuses = [];
  for (const browser of browsers)
    statuses.push((await post("/my/profile/edit/", PROFILE_FORM, { ip, cookie: browser })).status);
  expect(statuses).toEqual([...Array<number>(PER_IP).fill(302), 429]);

  const apiIp = someIp();
  const apiStatuses = [];
  for (let index = 0; index <= PER_IP; index++) {
    const member = await apiMember(`ip-limited-api-${index}`);
    apiStatuses.push((await api("/api/refresh-user", member.accessToken, { userSub: member.sub }, apiIp)).status);
  }
  expect(apiStatuses).toEqual([...Array<number>(PER_IP).fill(200), 429]);
});
