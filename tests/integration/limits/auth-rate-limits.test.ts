import { afterAll, beforeAll, expect, test } from "vitest";
import jaToasts from "../../../locales/ja/toasts.json";
import { cookieHeader } from "../../support/cookie-jar";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { getRequestCounts } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";
import { inviteMember, latestTemporaryPassword } from "../../support/invited-members";

/**
 * Rate limits over HTTP on the production build, posting as a browser form does. Small limits come from the
 * RATE_LIMIT_* variables. Two servers, because every request here comes from 127.0.0.1: one trusts no proxy
 * (so X-Forwarded-For is the client's to forge), the other sits behind one trusted proxy (so each test can be its
 * own client by the address the proxy forwards, and no test shares a per-IP count with another).
 */
const SIGN_IN_PER_ACCOUNT = 3;
const SIGN_IN_PER_IP = 4;
const FORGOT_PASSWORD_PER_ACCOUNT = 2;
const LIMITS = {
  RATE_LIMIT_SIGN_IN_PER_ACCOUNT: String(SIGN_IN_PER_ACCOUNT),
  RATE_LIMIT_SIGN_IN_PER_IP: String(SIGN_IN_PER_IP),
  RATE_LIMIT_FORGOT_PASSWORD_PER_ACCOUNT: String(FORGOT_PASSWORD_PER_ACCOUNT),
};

let direct: ServerProcess;
let proxied: ServerProcess;
let standInPort: number;

beforeAll(async () => {
  const common = { NODE_ENV: "production", LOG_LEVEL: "silent", ...LIMITS };
  // One after the other: two production servers starting at once on a loaded two-core machine can miss the
  // start-up deadline.
  direct = await startServerProcess("preview", { ...common, TRUST_PROXY_HOPS: "0" });
  proxied = await startServerProcess("preview", { ...common, TRUST_PROXY_HOPS: "1" });
  standInPort = proxied.standInPort;
}, 180_000);

afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
});

const unknownAddress = () => `nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`;
/** A client of its own (a random /64 of the documentation range), as a proxy would forward its address. */
const someIp = () => {
  const [a, b] = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${a!.toString(16)}:${b!.toString(16)}::1`;
};

function post(
  server: ServerProcess,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin", ...headers },
    body: new URLSearchParams(fields),
  });
}

function signIn(server: ServerProcess, email: string, password: string, forwardedFor = someIp()) {
  return post(server, "/auth/sign-in/", { intent: "sign-in", email, password }, { "X-Forwarded-For": forwardedFor });
}

/** The form's error list as rendered (pages also carry their translations as data, so a bare search would lie). */
const errorsIn = (html: string) =>
  [...html.matchAll(/class="error-list__item"[^>]*>([^<]*)</g)].map((match) => match[1]);

const signInCalls = async () =>
  (await getRequestCounts(`http://127.0.0.1:${standInPort}`)).byOperation.AdminInitiateAuth ?? 0;

test("the attempt after the per-account limit is refused without asking Cognito, the same for any account", async () => {
  const member = await createTestMember(standInPort, "limited");
  // A different client address each time: the account's count does not care where the attempts come from.
  for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT; attempt++) {
    const response = await signIn(proxied, member.email, "not-the-password");
    expect(response.status).toBe(400);
    expect(errorsIn(await response.text())).toEqual([jaToasts.loginFailed]);
  }
  const callsBefore = await signInCalls();
  // Even the right password: the limit is checked before Cognito sees it.
  const refused = await signIn(proxied, member.email, member.password);
  expect(refused.status).toBe(429);
  expect(refused.headers.getSetCookie().filter((cookie) => /^id_(session|device|pending)/.test(cookie))).toEqual([]);
  const page = await refused.text();
  expect(errorsIn(page)).toEqual([jaToasts.loginAttemptLimitExceeded]);
  expect(page).toContain(`value="${member.email}"`);
  expect(page).not.toContain(member.password);
  expect(await signInCalls()).toBe(callsBefore);

  // An address with no ID is limited the same way and reads the same, so the limit reveals nothing about the account.
  const nobody = unknownAddress();
  for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT; attempt++) {
    expect((await signIn(proxied, nobody, "not-the-password")).status).toBe(400);
  }
  const refusedNobody = await signIn(proxied, nobody, "not-the-password");
  expect(refusedNobody.status).toBe(429);
  expect(errorsIn(await refusedNobody.text())).toEqual([jaToasts.loginAttemptLimitExceeded]);
});

test("a forged X-Forwarded-For does not reset the per-IP limit when no proxy is trusted", async () => {
  // Every attempt names a new account and claims a new client address; the server sees one socket address.
  for (let attempt = 0; attempt < SIGN_IN_PER_IP; attempt++) {
    const response = await signIn(direct, unknownAddress(), "not-the-password", someIp());
    expect(response.status).toBe(400);
  }
  const refused = await signIn(direct, unknownAddress(), "not-the-password", someIp());
  expect(refused.status).toBe(429);
  expect(errorsIn(await refused.text())).toEqual([jaToasts.loginAttemptLimitExceeded]);
});

test("behind a trusted proxy each forwarded client has its own per-IP limit", async () => {
  const client = someIp();
  for (let attempt = 0; attempt < SIGN_IN_PER_IP; attempt++) {
    expect((await signIn(proxied, unknownAddress(), "not-the-password", client)).status).toBe(400);
  }
  expect((await signIn(proxied, unknownAddress(), "not-the-password", client)).status).toBe(429);
  expect((await signIn(proxied, unknownAddress(), "not-the-password", someIp())).status).toBe(400);
});

test("password-reset requests over the per-account limit say the attempt limit is exceeded, known address or not", async () => {
  const member = await createTestMember(standInPort, "reset-limited");
  for (const email of [member.email, unknownAddress()]) {
    const request = () =>
      post(proxied, "/auth/forgot-password/", { intent: "request", email }, { "X-Forwarded-For": someIp() });
    for (let attempt = 0; attempt < FORGOT_PASSWORD_PER_ACCOUNT; attempt++) expect((await request()).status).toBe(302);
    const refused = await request();
    expect(refused.status).toBe(429);
    expect(errorsIn(await refused.text())).toEqual([jaToasts.attemptLimitExceeded]);
  }
});

test("an invited member's 'choose your password' answer follows a right password: strangers' failures for the address do not refuse it", async () => {
  const invited = await inviteMember(standInPort, "limited-invited");
  const temporaryPassword = await latestTemporaryPassword(
    async () => (await fetch(`${proxied.url}/__dev/mailbox/`)).text(),
    invited.email,
  );
  const challenged = await signIn(proxied, invited.email, temporaryPassword);
  expect(challenged.headers.get("Location")).toBe("/auth/sign-in/new-password/");
  const cookie = cookieHeader(challenged);
  // Strangers spend the address's budget: a new sign-in of it is refused before Cognito.
  for (let attempt = 0; attempt < SIGN_IN_PER_ACCOUNT; attempt++) {
    expect((await signIn(proxied, invited.email, "not-the-password")).status).toBe(400);
  }
  expect((await signIn(proxied, invited.email, temporaryPassword)).status).toBe(429);
  // The step after the temporary password is no password guess: it counts only as a call from its client.
  const chosen = await post(
    proxied,
    "/auth/sign-in/new-password/",
    { password: "plum-kettle-harbour-42" },
    { Cookie: cookie, "X-Forwarded-For": someIp() },
  );
  expect(chosen.status).toBe(302);
  expect(chosen.headers.getSetCookie().some((setCookie) => /^id_session=[^;]/.test(setCookie))).toBe(true);
});
