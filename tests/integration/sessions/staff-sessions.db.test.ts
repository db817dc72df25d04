import { AdminSetUserPasswordCommand } from "@aws-sdk/client-cognito-identity-provider";
import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberPasskeys, memberSessions, staffFactorSetups, staffSessions } from "~db/schema";
import { parseConfig } from "~/config.server";
import { sessionCookie, staffSessionCookie } from "~/cookies/app-cookies.server";
import { completeCodeSignIn, signIn } from "~/domain/account/sign-in.server";
import { runPurge } from "~/domain/jobs/purge.server";
import { decryptSecret } from "~/domain/sessions/refresh-tokens.server";
import { endSessions, signOutEverywhere } from "~/domain/sessions/session-ending.server";
import { moveStaffSessionTimeBack, resolveStaffSession } from "~/domain/sessions/staff-sessions.server";
import { twoStepStatusOf } from "~/domain/security/two-step-verification.server";
import { staffContext, staffStandingContext } from "~/router-context.server";
import * as adminUserPage from "~/routes/staff/admin-user";
import { refreshMember } from "~/domain/staff/staff-actions.server";
import * as staffSignInPage from "~/routes/default/admin-sign-in";
import * as signOutPage from "~/routes/default/auth-sign-out";
import { pathFor } from "~/routing/route-table";
import type { Clock } from "~/services.server";
import {
  type StaffWithAuthenticator,
  createNamedMember,
  createStaffAdmin,
  firstAuthenticatorCode,
  nextAuthenticatorCode,
} from "../../support/admin-members";
import { wrongTotpCode } from "../../support/totp-codes";
import { connectToStandIn } from "../../support/bearer-tokens";
import { cookieHeader, cookieHeaderAfter, pairOf } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { resetHarness, setFault } from "../../support/stand-in-faults";
import { PRODUCTION_ENV } from "../../support/production-env";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { useTestServices } from "../../support/test-services";

// The staff session (app/domain/sessions/staff-sessions.server.ts) through the staff sign-in's route module on real
// parts: the stand-in's staff app client and SOFTWARE_TOKEN_MFA challenge over HTTP, PGlite (or PostgreSQL), and a
// clock the test moves for the 30-minute idle end and the 8-hour end.
const ORIGIN = "http://localhost:3995";
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
// A parent domain for the member cookie: the staff cookie must not take it.
const app = useTestServices({ label: "staff-sessions", origin: ORIGIN, clock, env: { COOKIE_DOMAIN: "localhost" } });
const calls = routeCalls(ORIGIN, () => app.services);
const STAFF_SIGN_IN = pathFor("admin-sign-in", "ja");
const MINUTE_MS = 60_000;

async function staffSignInPost(fields: Record<string, string>, cookie = "") {
  const request = calls.post(`${STAFF_SIGN_IN}?to=admin-users`, fields, cookie);
  return settle(staffSignInPage.action(calls.args(request, await calls.context(request, null))));
}

async function passwordStep(member: { email: string; password: string }, cookie = "") {
  return staffSignInPost({ intent: "password", email: member.email, password: member.password }, cookie);
}

/** The staff sign-in's two posts; answers the code step's response and the Cookie header the browser then holds. */
async function openStaffSession(staff: StaffWithAuthenticator, cookie = "") {
  const password = (await passwordStep(staff, cookie)) as Response;
  expect(password.status).toBe(302);
  const challenged = cookieHeaderAfter(cookie, password);
  const code = (await staffSignInPost(
    { intent: "code", code: await nextAuthenticatorCode(staff) },
    challenged,
  )) as Response;
  return { response: code, cookie: cookieHeaderAfter(challenged, code) };
}

async function staffSessionOf(cookie: string) {
  const value = await staffSessionCookie.read(
    app.services.config,
    new Request(ORIGIN, { headers: { Cookie: cookie } }),
  );
  if (!value) throw new Error("no staff session cookie");
  return value;
}

/** The staff member signed in as a member too (the members' sign-in, with its own code step). */
async function memberSignIn(staff: StaffWithAuthenticator) {
  const browser = {
    email: staff.email,
    deviceKey: crypto.randomUUID(),
    userAgent: null,
    clientIp: "127.0.0.1",
    locale: "ja" as const,
  };
  const started = await signIn(app.services, { ...browser, password: staff.password });
  if (started.kind !== "codeRequired") throw new Error(`member sign-in ended as ${started.kind}`);
  const code = await nextAuthenticatorCode(staff);
  const member = await completeCodeSignIn(app.services, { ...browser, ...started, code });
  if (member.kind !== "active") throw new Error(`member sign-in ended as ${member.kind}`);
  return member;
}

type FormReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit };

test("the password and the authenticator's code open a staff session in a host-only cookie, back to `to`", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-open");
  const password = (await passwordStep(staff)) as Response;
  expect(password.headers.get("Location")).toBe(`${STAFF_SIGN_IN}?to=admin-users`);
  expect(cookieHeader(password)).toMatch(/id_staff_code_step=/);

  const { response, cookie } = await openStaffSession(staff);
  expect(response.status).toBe(302);
  expect(response.headers.get("Location")).toBe(pathFor("admin-users", "ja"));
  const set = response.headers.getSetCookie().find((value) => value.startsWith("id_staff_session="))!;
  // The member cookie takes COOKIE_DOMAIN for the siblings; the staff cookie never does.
  expect(set).not.toMatch(/Domain=/i);
  expect(set).toMatch(/HttpOnly/);
  expect(set).toMatch(/SameSite=Lax/i);

  const session = await staffSessionOf(cookie);
  const resolved = await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at });
  expect(resolved).toMatchObject({ kind: "staff", staff: { sub: staff.sub, email: staff.email, groups: ["admin"] } });
  // The access token is the staff client's, not the members'.
  const claims = JSON.parse(Buffer.from(session.at.split(".")[1]!, "base64url").toString()) as { client_id: string };
  expect(claims.client_id).toBe(app.services.config.cognito.staffClientId);
});

test("over https the staff cookie is __Host- prefixed, Secure and host-only", async () => {
  const https = parseConfig({ ...PRODUCTION_ENV, COOKIE_DOMAIN: ".example.jp" });
  const set = await staffSessionCookie.serialize(https, { sid: "s", at: "t" });
  expect(set).toMatch(/^__Host-id_staff_session=/);
  expect(set).toMatch(/; Secure/);
  expect(set).toMatch(/; Path=\//);
  expect(set).not.toMatch(/Domain=/i);
});

test("a staff session ends after 30 minutes without a staff page view", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-idle");
  const session = await staffSessionOf((await openStaffSession(staff)).cookie);
  const cookie = { sessionId: session.sid, accessToken: session.at };

  offsetMs = 29 * MINUTE_MS;
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("staff");
  // 29 minutes after that view: still within the idle time, because each view counts.
  offsetMs = 58 * MINUTE_MS;
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("staff");
  offsetMs = 88 * MINUTE_MS;
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("ended");
  const [row] = await app.db.select().from(staffSessions).where(eq(staffSessions.id, session.sid));
  expect(row?.endedAt).not.toBeNull();
  // Ended for good: the clock going back does not bring it back.
  offsetMs = 0;
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("ended");
});

test("a staff session ends 8 hours after it opened, however busy", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-8h");
  const session = await staffSessionOf((await openStaffSession(staff)).cookie);
  const { db } = app;
  // Eight hours of views every 20 minutes, as the app's clock counts them; the access token is checked against
  // the real time, so the rows' times are moved instead of waiting.
  await db
    .update(staffSessions)
    .set({
      createdAt: new Date(Date.now() - 8 * 60 * MINUTE_MS + MINUTE_MS),
      lastSeenAt: new Date(Date.now() - 20 * MINUTE_MS),
    })
    .where(eq(staffSessions.id, session.sid));
  const cookie = { sessionId: session.sid, accessToken: session.at };
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("staff");
  offsetMs = 2 * MINUTE_MS;
  expect((await resolveStaffSession(app.services, cookie)).kind).toBe("ended");
  offsetMs = 0;
});

test("the staff area's sign-out ends the staff session and the member session; the member sign-out ends both too", async () => {
  offsetMs = 0;
  const { db } = app;
  for (const via of ["staff", "member"] as const) {
    const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, `staff-out-${via}`);
    const member = await memberSignIn(staff);
    const { cookie } = await openStaffSession(staff);
    const session = await staffSessionOf(cookie);
    const memberPair = pairOf(
      await sessionCookie.serialize(app.services.config, { sid: member.sessionId, at: member.accessToken }),
    );
    const both = `${cookie}; ${memberPair}`;

    const request =
      via === "staff"
        ? calls.post(STAFF_SIGN_IN, { intent: "sign-out" }, both)
        : calls.post(pathFor("auth-sign-out", "ja"), {}, both);
    const page = via === "staff" ? staffSignInPage : signOutPage;
    const answer = (await settle(page.action(calls.args(request, await calls.context(request, null))))) as Response;
    expect(answer.status).toBe(302);
    const cleared = answer.headers.getSetCookie().map(pairOf);
    expect(cleared).toEqual(expect.arrayContaining(["id_staff_session=", "id_session="]));

    const [staffRow] = await db.select().from(staffSessions).where(eq(staffSessions.id, session.sid));
    expect(staffRow?.endedAt).not.toBeNull();
    // Revoked at Cognito, so the ended row keeps no token.
    expect(staffRow?.refreshTokenEncrypted).toBeNull();
    const [memberRow] = await db.select().from(memberSessions).where(eq(memberSessions.id, member.sessionId));
    expect(memberRow?.revokedAt).not.toBeNull();
  }
});

/** The staff session's row and its refresh token in clear, read before it ends. */
async function staffRowOf(sessionId: string) {
  const [row] = await app.db.select().from(staffSessions).where(eq(staffSessions.id, sessionId));
  if (!row) throw new Error("no staff session row");
  return { ...row, refreshToken: decryptSecret(row.refreshTokenEncrypted ?? "", app.services.config.sessionSecrets)! };
}

const CLIENT_IP = "192.0.2.24";

// Each as the feature ends the member's sessions: `sessionId` is the member session of the browser that asks.
const endingsForTheMember: [string, (sub: string, sessionId: string) => Promise<unknown>][] = [
  [
    "Log out of every device but this browser",
    (sub, sessionId) =>
      endSessions(
        app.services,
        { sub, allBut: sessionId },
        { record: { kind: "other-sessions-ended", clientIp: CLIENT_IP } },
      ),
  ],
  [
    "This wasn't me (the alert mail's link names the session)",
    (sub, sessionId) =>
      endSessions(
        app.services,
        { sub, device: { sessionId } },
        { record: { kind: "session-reported", clientIp: CLIENT_IP } },
      ),
  ],
  ["a cancellation", (sub) => endSessions(app.services, { sub, all: true })],
  [
    "a password change, which keeps this browser's member session",
    (sub, sessionId) => signOutEverywhere(app.services, { sub, keepSessionId: sessionId, reason: "password-changed" }),
  ],
  [
    "staff ending every session or disabling the member",
    (sub) =>
      signOutEverywhere(app.services, {
        sub,
        keepSessionId: null,
        reason: "staff-ended-sessions",
        includeThisSecond: true,
      }),
  ],
];

test.each(endingsForTheMember)(
  "%s ends the member's staff sessions at once and revokes their staff refresh tokens",
  async (_, endForTheMember) => {
    offsetMs = 0;
    const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-ended-for");
    const member = await memberSignIn(staff);
    const session = await staffSessionOf((await openStaffSession(staff)).cookie);
    const { refreshToken } = await staffRowOf(session.sid);

    await endForTheMember(staff.sub, member.sessionId);

    // Not at the next refresh minutes later: the staff page right after is refused.
    expect((await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at })).kind).toBe(
      "ended",
    );
    const row = await staffRowOf(session.sid);
    expect(row.endedAt).not.toBeNull();
    expect(row.refreshTokenEncrypted).toBeNull();
    await expect(app.services.identity.staffRefresh(refreshToken)).rejects.toMatchObject({
      code: "invalidCredentials",
    });
  },
  60_000,
);

test("signing out one other device leaves the staff session: it belongs to no one member session", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-one-device");
  const member = await memberSignIn(staff);
  const session = await staffSessionOf((await openStaffSession(staff)).cookie);
  const [ended] = await endSessions(
    app.services,
    { sub: staff.sub, device: { sessionId: member.sessionId } },
    { record: { kind: "device-deactivated", clientIp: CLIENT_IP } },
  );
  expect(ended?.sessionId).toBe(member.sessionId);
  expect((await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at })).kind).toBe(
    "staff",
  );
});

test("a staff refresh token Cognito cannot revoke at sign-out stays owed on the ended row; the purge revokes and clears it", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-owed");
  const { cookie } = await openStaffSession(staff);
  const session = await staffSessionOf(cookie);
  const { refreshToken } = await staffRowOf(session.sid);
  const endpoint = app.stack.env.COGNITO_ENDPOINT!;
  await setFault(endpoint, { mode: "fail", operations: ["RevokeToken"], times: 100 });
  try {
    const signedOut = (await staffSignInPost({ intent: "sign-out" }, cookie)) as Response;
    expect(signedOut.status).toBe(302);
  } finally {
    await resetHarness(endpoint);
  }
  const owed = await staffRowOf(session.sid);
  expect(owed.endedAt).not.toBeNull();
  // Kept, as the only place the token is to revoke it later; the staff area is closed by the row's end.
  expect(owed.refreshToken).toBe(refreshToken);
  expect((await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at })).kind).toBe(
    "ended",
  );

  const report = await runPurge(app.services, clock.now());
  expect(report.staffRevocations?.confirmed).toBeGreaterThanOrEqual(1);
  expect((await staffRowOf(session.sid)).refreshTokenEncrypted).toBeNull();
  await expect(app.services.identity.staffRefresh(refreshToken)).rejects.toMatchObject({ code: "invalidCredentials" });
}, 60_000);

type DataReply = { data: Record<string, unknown>; init: { status?: number; headers?: Headers } };

/** The staff sign-in page as the browser holding `cookie` sees it. */
async function staffSignInView(cookie: string) {
  const request = calls.get(`${STAFF_SIGN_IN}?to=admin-users`, cookie);
  return (await settle(staffSignInPage.loader(calls.args(request, await calls.context(request, null))))) as Awaited<
    ReturnType<typeof staffSignInPage.loader>
  >;
}

test("a first visit without a second factor: one password, the app set up on the sign-in page, its first code opens the staff area", async () => {
  offsetMs = 0;
  const bare = await createStaffAdmin(app.standInPort, "staff-bare");
  const password = (await passwordStep(bare)) as Response;
  expect(password.status).toBe(302);
  expect(password.headers.get("Location")).toBe(`${STAFF_SIGN_IN}?to=admin-users`);
  const setupCookie = cookieHeader(password);
  expect(setupCookie).toMatch(/id_staff_factor_setup=/);
  expect(setupCookie).not.toMatch(/id_staff_session=|id_staff_code_step=/);
  // Nothing of the sign-in reaches the browser: the cookie names the set-up, whose tokens and secret stay in the database.
  const signed = decodeURIComponent(setupCookie.replace("id_staff_factor_setup=", "")).split(".")[0]!;
  expect(Object.keys(JSON.parse(Buffer.from(signed, "base64").toString()) as object)).toEqual(["setupId"]);

  const view = await staffSignInView(setupCookie);
  expect(view.view).toBe("setup");
  expect(view.email).toBe(bare.email);
  const secret = view.setup!.key.replaceAll(" ", "");
  expect(view.setup!.qrSvg).toMatch(/^<svg/);

  // A wrong code is the field's message; the set-up stays for the right one.
  const wrong = (await staffSignInPost({ intent: "confirm", code: wrongTotpCode(secret) }, setupCookie)) as DataReply;
  expect(wrong.init.status).toBe(400);
  expect((wrong.data as FormReply["data"]).result.error?.code).toHaveLength(1);
  expect((await staffSignInView(setupCookie)).view).toBe("setup");

  const { code } = await firstAuthenticatorCode(secret);
  const done = (await staffSignInPost({ intent: "confirm", code }, setupCookie)) as DataReply;
  expect(done.data).toMatchObject({ form: "codes", target: pathFor("admin-users", "ja") });
  expect(done.data.codes).toHaveLength(10);
  const cookie = cookieHeaderAfter(setupCookie, new Response(null, { headers: done.init.headers }));
  expect(cookie).not.toMatch(/id_staff_factor_setup=/);
  const session = await staffSessionOf(cookie);
  expect(await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at })).toMatchObject({
    kind: "staff",
    staff: { sub: bare.sub, email: bare.email },
  });
  expect((await twoStepStatusOf(app.db, bare.sub)).enabled).toBe(true);
  // The set-up is used up: the same post again opens nothing.
  const again = (await staffSignInPost({ intent: "confirm", code }, setupCookie)) as Response;
  expect(again.headers.get("Location")).toBe(`${STAFF_SIGN_IN}?to=admin-users`);
  expect(cookieHeader(again)).not.toMatch(/id_staff_session=/);
  // From now on the staff sign-in asks for the app's code after the password.
  expect(cookieHeader((await passwordStep(bare)) as Response)).toMatch(/id_staff_code_step=/);
});

test("a first visit's set-up given up or left revokes its sign-in; a member outside the group gets none", async () => {
  offsetMs = 0;
  const keptTokens = async (sub: string) => {
    const rows = await app.db.select().from(staffFactorSetups).where(eq(staffFactorSetups.sub, sub));
    return rows.map((row) => decryptSecret(row.staffRefreshTokenEncrypted, app.services.config.sessionSecrets)!);
  };
  const cancelling = await createStaffAdmin(app.standInPort, "staff-setup-cancel");
  const setupCookie = cookieHeader((await passwordStep(cancelling)) as Response);
  const [cancelledToken] = await keptTokens(cancelling.sub);
  const cancelled = (await staffSignInPost({ intent: "cancel" }, setupCookie)) as Response;
  expect(cancelled.headers.get("Location")).toBe(`${STAFF_SIGN_IN}?to=admin-users`);
  expect(cookieHeaderAfter(setupCookie, cancelled)).toBe("");
  expect(await keptTokens(cancelling.sub)).toEqual([]);
  await expect(app.services.identity.staffRefresh(cancelledToken!)).rejects.toMatchObject({
    code: "invalidCredentials",
  });

  const leaving = await createStaffAdmin(app.standInPort, "staff-setup-left");
  await passwordStep(leaving);
  const [leftToken] = await keptTokens(leaving.sub);
  const report = await runPurge(app.services, new Date(Date.now() + 11 * MINUTE_MS));
  expect(report.staffFactorSetups).toBeGreaterThanOrEqual(1);
  expect(await keptTokens(leaving.sub)).toEqual([]);
  await expect(app.services.identity.staffRefresh(leftToken!)).rejects.toMatchObject({ code: "invalidCredentials" });

  const member = await createNamedMember(app.standInPort, {
    email: `not-staff-setup-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  expect(((await passwordStep(member)) as FormReply).init.status).toBe(403);
  expect(await keptTokens(member.sub)).toEqual([]);
});

test("an invited staff member who never chose a password is told to choose it as a member first; nothing is kept", async () => {
  offsetMs = 0;
  const invited = await createStaffAdmin(app.standInPort, "staff-invited");
  const sdk = await connectToStandIn(app.standInPort);
  try {
    // A temporary password, as an invitation's: Cognito answers NEW_PASSWORD_REQUIRED.
    await sdk.cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: sdk.userPoolId,
        Username: invited.email,
        Password: invited.password,
        Permanent: false,
      }),
    );
  } finally {
    sdk.destroy();
  }
  const refused = (await passwordStep(invited)) as FormReply;
  expect(refused.init.status).toBe(403);
  expect(JSON.stringify(refused.data.result.error)).toContain("仮パスワード");
  expect(await app.db.select().from(staffFactorSetups).where(eq(staffFactorSetups.sub, invited.sub))).toEqual([]);
});

test("staff with only a passkey go on to the passkey step, with no session yet", async () => {
  offsetMs = 0;
  const withPasskey = await createStaffAdmin(app.standInPort, "staff-passkey");
  await app.db.insert(memberPasskeys).values({
    credentialId: crypto.randomUUID(),
    sub: withPasskey.sub,
    madeOnDevice: "macOS",
    madeOnBrowser: "Safari",
    createdAt: new Date(),
  });
  // The passkey step comes next (tests/integration/sessions/staff-passkey-sign-in.db.test.ts): no session yet.
  const passkeyStep = (await passwordStep(withPasskey)) as Response;
  expect(passkeyStep.headers.get("Location")).toBe(`${STAFF_SIGN_IN}?to=admin-users`);
  expect(cookieHeader(passkeyStep)).toMatch(/id_staff_passkey_step=/);
  expect(cookieHeader(passkeyStep)).not.toMatch(/id_staff_session=|id_staff_code_step=/);

  const rows = await app.db.select().from(staffSessions).where(eq(staffSessions.sub, withPasskey.sub));
  expect(rows).toEqual([]);
});

test("a member outside the staff group gets no staff session, with or without a second factor", async () => {
  offsetMs = 0;
  const member = await createNamedMember(app.standInPort, {
    email: `not-staff-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  const refused = (await passwordStep(member)) as FormReply;
  expect(refused.init.status).toBe(403);
  const rows = await app.db.select().from(staffSessions).where(eq(staffSessions.sub, member.sub));
  expect(rows).toEqual([]);
});

test("a wrong password is refused on the form, the address kept, the password not", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-wrong");
  const refused = (await passwordStep({ email: staff.email, password: "not-the-password-1" })) as FormReply & {
    data: { result: { initialValue?: Record<string, string> } };
  };
  expect(refused.init.status).toBe(400);
  expect(refused.data.result.initialValue).toEqual({ intent: "password", email: staff.email });
});

test("disabling, turning off 2-step verification and changing a member's e-mail need the password and code within 10 minutes; the typed address is kept", async () => {
  offsetMs = 0;
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "staff-confirm");
  const session = await staffSessionOf((await openStaffSession(staff)).cookie);
  await moveStaffSessionTimeBack(app.db, { sessionId: session.sid, minutes: 11 });
  const resolved = await resolveStaffSession(app.services, { sessionId: session.sid, accessToken: session.at });
  if (resolved.kind !== "staff") throw new Error(`the staff session is ${resolved.kind}`);
  const target = await createNamedMember(app.standInPort, {
    email: `confirm-target-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  await refreshMember(app.services, { sub: staff.sub, email: staff.email, requestId: "staff-sessions" }, target.sub);
  const detail = pathFor("admin-user", "ja", { sub: target.sub });
  const staffPost = async (fields: Record<string, string>, cookie = "") => {
    const request = calls.post(detail, fields, cookie);
    const context = await calls.context(request, null);
    context.set(staffContext, resolved.staff);
    // What the staff layout's middleware reads from the member directory (readStaffStanding): staff now.
    context.set(staffStandingContext, "staff");
    return settle(adminUserPage.action(calls.args(request, context, { sub: target.sub })));
  };

  for (const intent of ["disable", "two-step-off"]) {
    const asked = (await staffPost({ intent })) as Response;
    expect(asked.status).toBe(302);
    const back = `${detail}?confirm=${intent}`;
    expect(asked.headers.get("Location")).toBe(
      `${STAFF_SIGN_IN}?${new URLSearchParams({ mode: "confirm", to: back })}`,
    );
  }
  const newEmail = `confirm-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const asked = (await staffPost({ intent: "email-change", email: newEmail })) as Response;
  expect(asked.headers.get("Location")).toBe(
    `${STAFF_SIGN_IN}?${new URLSearchParams({ mode: "confirm", to: detail })}`,
  );
  const kept = cookieHeader(asked);
  expect(kept).toMatch(/id_kept_form=/);
  // Back on the page: the review panel shows the address typed before.
  const pageRequest = calls.get(detail, kept);
  const pageContext = await calls.context(pageRequest, null);
  pageContext.set(staffContext, resolved.staff);
  pageContext.set(staffStandingContext, "staff");
  const page = (await adminUserPage
    .loader(calls.args(pageRequest, pageContext, { sub: detail.split("/")[3]! }))
    .catch((thrown: unknown) => thrown)) as { keptEmail?: string } | { init: ResponseInit };
  // An unknown member's page is a 404; what matters is that the confirmation was not asked again.
  expect("keptEmail" in page ? page.keptEmail : (page as { init: ResponseInit }).init.status).toBeTruthy();

  // Confirmed just now (the staff sign-in in confirm mode opens a new staff session): the action goes ahead.
  const confirmed = await resolveStaffSession(app.services, {
    sessionId: (await staffSessionOf((await openStaffSession(staff)).cookie)).sid,
    accessToken: session.at,
  });
  if (confirmed.kind !== "staff") throw new Error(`the confirmed staff session is ${confirmed.kind}`);
  const request = calls.post(detail, { intent: "disable" });
  const context = await calls.context(request, null);
  context.set(staffContext, confirmed.staff);
  context.set(staffStandingContext, "staff");
  const done = await settle(adminUserPage.action(calls.args(request, context, { sub: target.sub })));
  expect((done as Response).headers.get("Location")).toBe(detail);
  expect((await app.services.identity.getUser(target.email)).enabled).toBe(false);
});
