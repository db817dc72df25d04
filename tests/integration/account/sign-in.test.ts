import { AdminDisableUserCommand, SignUpCommand } from "@aws-sdk/client-cognito-identity-provider";
import { beforeAll, describe, expect, test } from "vitest";
import { cookieHeader, setCookieNamed } from "../../support/cookie-jar";
import { get, post, sessionPair, signIn, signedIn } from "../../support/session-http";
import {
  DEVICE_LIMIT,
  DEVICE_LIMIT_SERVER_ENV,
  type TestServer,
  sdk,
  useTestServers,
} from "../../support/session-servers";
import { resetHarness, setFault } from "../../support/stand-in-faults";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";
import { inviteMember, latestTemporaryPassword } from "../../support/invited-members";
import { ageInvitation, expireChallengeSessions } from "../../support/stand-ins/stand-in/harness-client";

/**
 * Sign-in over HTTP against the production build (preview mode) and its Cognito stand-in, whose harness injects
 * faults: the cookies' attributes, no account
 * enumeration at sign-in and sign-up, throttling and outages at sign-in, and the device limit under concurrent
 * sign-ins and at "Continue login".
 */

// Six sign-ins of one account at once from this one client would be five too many for the per-account-and-client
// failure budget while their outcomes are pending (a try is counted until it succeeds): the device limit is what
// these tests are about, so that budget is out of their way here.
const servers = useTestServers({
  main: { ...DEVICE_LIMIT_SERVER_ENV, RATE_LIMIT_SIGN_IN_PER_ACCOUNT_AND_IP: "100" },
});
let main: TestServer;
beforeAll(() => {
  main = servers.main;
});

// Pages carry their translations as data, so a message counts only where it is rendered.
const headingIn = (html: string) => /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
const errorsIn = (html: string) =>
  [...html.matchAll(/class="error-list__item"[^>]*>([^<]*)</g)].map((match) => match[1]);

const LOGIN_FAILED = "ログインに失敗しました。メールアドレスとパスワードを確認してください";
const LOGIN_ATTEMPT_LIMIT = "ログイン試行回数の上限を超えました。数分後に再度お試しください";
const IDENTITY_UNAVAILABLE = "認証サービスが一時的に利用できません。時間をおいて再度お試しください";
const DEVICE_LIMIT_HEADING = "ログイン中のデバイスが上限に達しています";

/** Nothing that looks like a stack trace or an internal error name reaches the page. */
function expectNoInternals(html: string) {
  expect(html).not.toMatch(/\n\s+at\s/);
  expect(html).not.toMatch(/\(\/[^)]*\.(ts|js|mjs):\d+:\d+\)/);
  expect(html).not.toMatch(/InternalErrorException|TimeoutError|IdentityError|DomainError/);
}

// ---- cookie attributes ---------------------------------------------------------------------------------------------

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

// ---- no account enumeration --------------------------------------------------------------------------------------

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
      {
        label: "unknown e-mail",
        email: `enum-nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`,
        password: TEST_PASSWORD,
      },
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

// ---- throttling and outages at sign-in ---------------------------------------------------------------------------

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

  test(
    "slower than the deadline: temporarily unavailable within the deadline, no session",
    { timeout: 45_000 },
    async () => {
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
      // The app gave up at its own deadline (8 s) instead of waiting for the stand-in's answer, which comes after 20 s.
      // The bound is the stand-in's delay, not the deadline plus a guessed margin a busy machine could exceed.
      expect(elapsed).toBeLessThan(20_000);
    },
  );
});

// ---- the device limit: concurrent sign-ins, and "Continue login" while Cognito is down ---------------------------

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
    expect(html).toMatch(/data-testid="device-count"[^>]*>ログイン中のデバイス：2台（/);
    // The held sign-in's own row, marked, beside the two deactivatable devices.
    expect(html.match(/>現在ログイン中</g)).toHaveLength(1);
    expect(html.match(/value="deactivate"/g)).toHaveLength(DEVICE_LIMIT);
  }
  for (const { cookie } of active) expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
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

// ---- an invited member's first sign-in (staff's CSV import: AdminCreateUser mails a temporary password) -----------

const CHOOSE_PASSWORD_HEADING = "パスワードの設定";
const TEMPORARY_PASSWORD_EXPIRED =
  "仮パスワードの有効期限が切れています。下の「パスワードをお忘れの方」から、新しい仮パスワードの案内メールを受け取ってください";
const CHALLENGE_EXPIRED = "パスワードの設定に時間がかかったため、手続きが無効になりました。";
const MEMBER_PASSWORD = "chosen-by-the-member-1";

const temporaryPasswordOf = (email: string, after = "") =>
  latestTemporaryPassword(async () => (await get(main, "/__dev/mailbox/")).text(), email, after);

/** The staff API's view of a member: its directory row after a refresh by sub (AdminGetUser). */
async function staffApi(path: string, method: "GET" | "POST", accessToken: string) {
  const response = await fetch(`${main.origin}${path}`, {
    method,
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { directory?: { cognitoStatus: string } | null };
}

test("an invited member signs in with the mailed temporary password, chooses a password by field, and lands in the app", async () => {
  const invited = await inviteMember(main.standInPort, "invited");
  const admin = await createApiStaff(main.process, "invited");
  const { accessToken } = await staffTokensFor(await sdk(main), admin);
  await staffApi(`/api/admin/users/${invited.sub}/refresh`, "POST", accessToken);
  expect((await staffApi(`/api/admin/users/${invited.sub}`, "GET", accessToken)).directory?.cognitoStatus).toBe(
    "FORCE_CHANGE_PASSWORD",
  );
  const temporaryPassword = await temporaryPasswordOf(invited.email);

  // The temporary password leads to "choose your password", `to` kept; the challenge rides in an HttpOnly cookie.
  const signInResponse = await post(main, "/auth/sign-in/?to=my-profile", {
    intent: "sign-in",
    email: invited.email,
    password: temporaryPassword,
  });
  expect(signInResponse.status).toBe(302);
  expect(signInResponse.headers.get("Location")).toBe("/auth/sign-in/new-password/?to=my-profile");
  expect(setCookieNamed(signInResponse, "id_session")).toBeUndefined();
  const challengeCookie = setCookieNamed(signInResponse, "id_new_password") ?? "";
  expect(challengeCookie).toMatch(/; HttpOnly(;|$)/);
  const challengeValue = decodeURIComponent(challengeCookie.split(";")[0]!.split("=").slice(1).join("="));
  expect(Buffer.from(challengeValue.split(".")[0]!, "base64").toString("utf8")).not.toContain(temporaryPassword);
  let cookie = cookieHeader(signInResponse);

  const page = await get(main, "/auth/sign-in/new-password/?to=my-profile", cookie);
  expect(page.status).toBe(200);
  expect(page.headers.get("Cache-Control")).toContain("no-store");
  const pageHtml = await page.text();
  expect(headingIn(pageHtml)).toBe(CHOOSE_PASSWORD_HEADING);
  expect(pageHtml).toContain(invited.email);

  // Too short: refused on its field, nothing typed kept.
  const weak = await post(main, "/auth/sign-in/new-password/?to=my-profile", { password: "short7!" }, cookie);
  expect(weak.status).toBe(400);
  const weakHtml = await weak.text();
  expect(errorsIn(weakHtml)).toEqual(["8文字以上で入力してください"]);
  expect(weakHtml).not.toContain("short7!");

  const chosen = await post(main, "/auth/sign-in/new-password/?to=my-profile", { password: MEMBER_PASSWORD }, cookie);
  expect(chosen.status).toBe(302);
  expect(chosen.headers.get("Location")).toBe("/my/profile/");
  cookie = cookieHeader(signInResponse, chosen);
  expect(sessionPair(cookie)).not.toBe("");
  expect(cookie).not.toContain("id_new_password=");
  expect((await get(main, "/my/profile/", cookie)).status).toBe(200);

  // The temporary password is spent; the member's own works; the directory says CONFIRMED (the app's own write).
  expect((await signIn(main, { email: invited.email, password: temporaryPassword })).response.status).toBe(400);
  await signedIn(main, { email: invited.email, password: MEMBER_PASSWORD });
  await expect
    .poll(async () => (await staffApi(`/api/admin/users/${invited.sub}`, "GET", accessToken)).directory?.cognitoStatus)
    .toBe("CONFIRMED");
});

test("a 'choose your password' step older than Cognito's session goes back to sign-in and says why", async () => {
  const invited = await inviteMember(main.standInPort, "slow-invited");
  const temporaryPassword = await temporaryPasswordOf(invited.email);
  const { response, cookie } = await signIn(main, { email: invited.email, password: temporaryPassword });
  expect(response.headers.get("Location")).toBe("/auth/sign-in/new-password/");
  await expireChallengeSessions(main.standIn);

  const late = await post(main, "/auth/sign-in/new-password/", { password: MEMBER_PASSWORD }, cookie);
  expect(late.status).toBe(302);
  expect(late.headers.get("Location")).toBe("/auth/sign-in/");
  expect(sessionPair(cookieHeader(late))).toBe("");
  const html = await (await get(main, "/auth/sign-in/", cookieHeader(response, late))).text();
  expect(html).toContain(CHALLENGE_EXPIRED);
  // Without a challenge the page itself sends the browser to sign in.
  expect((await get(main, "/auth/sign-in/new-password/", cookieHeader(response, late))).headers.get("Location")).toBe(
    "/auth/sign-in/",
  );
  // The temporary password still answers with the challenge, so the member can try again.
  expect(
    (await signIn(main, { email: invited.email, password: temporaryPassword })).response.headers.get("Location"),
  ).toBe("/auth/sign-in/new-password/");
});

test("forgot-password leaves an invited member's temporary password alone while it is still valid", async () => {
  const invited = await inviteMember(main.standInPort, "valid-invited");
  const first = await temporaryPasswordOf(invited.email);
  const request = await post(main, "/auth/forgot-password/", { intent: "request", email: invited.email });
  expect(request.status).toBe(302);
  // Anyone can ask for any address: asking must not replace the password the member was mailed.
  const signedInWithIt = await signIn(main, { email: invited.email, password: first });
  expect(signedInWithIt.response.headers.get("Location")).toBe("/auth/sign-in/new-password/");
});

test("an expired temporary password says so; forgot-password mails a new one, neutrally, and only that one works", async () => {
  const invited = await inviteMember(main.standInPort, "expired-invited");
  const first = await temporaryPasswordOf(invited.email);
  const { userPoolId } = await sdk(main);
  await ageInvitation(main.standIn, userPoolId, invited.email, 8);

  const expired = await signIn(main, { email: invited.email, password: first });
  expect(expired.response.status).toBe(400);
  const expiredHtml = await expired.response.text();
  expect(expiredHtml).toContain(TEMPORARY_PASSWORD_EXPIRED);
  expect(expiredHtml).toContain('href="/auth/forgot-password/"');
  expectNoInternals(expiredHtml);

  // The reset request answers exactly as for an address nobody has; the invited member gets the invitation again.
  const request = (email: string) => post(main, "/auth/forgot-password/", { intent: "request", email });
  const forInvited = await request(invited.email);
  const forNobody = await request(`nobody-${crypto.randomUUID().slice(0, 8)}@example.jp`);
  expect(forInvited.status).toBe(302);
  expect([forInvited.status, forInvited.headers.get("Location"), cookieNames(forInvited)]).toEqual([
    forNobody.status,
    forNobody.headers.get("Location"),
    cookieNames(forNobody),
  ]);
  const second = await temporaryPasswordOf(invited.email, first);
  expect(second).not.toBe(first);

  expect((await signIn(main, { email: invited.email, password: first })).response.status).toBe(400);
  const again = await signIn(main, { email: invited.email, password: second });
  expect(again.response.headers.get("Location")).toBe("/auth/sign-in/new-password/");
  const chosen = await post(main, "/auth/sign-in/new-password/", { password: MEMBER_PASSWORD }, again.cookie);
  expect(chosen.status).toBe(302);
  expect(sessionPair(cookieHeader(again.response, chosen))).not.toBe("");
});
