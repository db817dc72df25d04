import { and, eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { afterEach, expect, test } from "vitest";
import { mailOutbox, securityEvents, twoStepVerifications } from "~db/schema";
import { signIn, signInWithRecoveryCode } from "~/domain/account/sign-in.server";
import { toDomainError } from "~/domain/domain-error.server";
import { countRecoveryCodesLeft } from "~/domain/security/recovery-codes.server";
import { runPurge } from "~/domain/jobs/purge.server";
import { TOTP_OFF_REPAIR_AFTER_MS, markTotpOff } from "~/domain/security/two-step-verification.server";
import * as signInPage from "~/routes/default/auth-sign-in";
import * as twoStepPage from "~/routes/default/auth-two-step";
import { pathFor } from "~/routing/route-table";
import { memberWithTwoStepIn, serverTokenFor } from "../../support/signed-in-members";
import { cookieHeader } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import {
  getRequestCounts,
  resetHarness,
  resetRequestCounts,
  setFault,
} from "../../support/stand-ins/stand-in/harness-client";
import { useTestServices } from "../../support/test-services";

// The sign-in of a member with 2-step verification, through the sign-in and code-step route modules on real parts:
// the stand-in's SOFTWARE_TOKEN_MFA challenge over HTTP, PGlite (or PostgreSQL). Codes are computed from the member's
// key as an authenticator app would.
const ORIGIN = "http://localhost:3994";
const PASSWORD = "correct-horse-battery";
const app = useTestServices({ label: "two-step-sign-in", origin: ORIGIN });
const calls = routeCalls(ORIGIN, () => app.services);
const SIGN_IN = pathFor("auth-sign-in", "ja");
const CODE_STEP = pathFor("auth-two-step", "ja");
const STEP_MS = 30_000;

afterEach(async () => {
  if (app.stack) await resetHarness(app.stack.env.COGNITO_ENDPOINT!);
});

const codeFor = (secret: string, steps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * STEP_MS });

/** A member who turned on 2-step verification; the code that turned it on used up the current time step. */
const memberWithTwoStep = (label: string) => memberWithTwoStepIn(app.services, label, PASSWORD);

/** The sign-in form's post; answers the redirect and the cookies the browser then holds. */
async function passwordStep(email: string) {
  const request = calls.post(SIGN_IN, { intent: "sign-in", email, password: PASSWORD });
  const response = (await settle(
    signInPage.action(calls.args(request, await calls.context(request, null))),
  )) as Response;
  return { response, cookie: cookieHeader(response) };
}

async function codeStep(fields: Record<string, string>, cookie: string) {
  const request = calls.post(CODE_STEP, fields, cookie);
  return settle(twoStepPage.action(calls.args(request, await calls.context(request, null))));
}

type FormReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit };

test("the password leads to the code step; a wrong code is refused there, the app's code signs in", async () => {
  const member = await memberWithTwoStep("code");
  const { response, cookie } = await passwordStep(member.email);
  expect(response.headers.get("Location")).toBe(CODE_STEP);
  expect(cookie).toMatch(/id_code_step=/);
  expect(cookie).not.toMatch(/id_session=/);

  const pageRequest = calls.get(CODE_STEP, cookie);
  const page = await twoStepPage.loader(calls.args(pageRequest, await calls.context(pageRequest, null)));
  expect(page).toMatchObject({ view: "code", email: member.email });
  // The password alone does not tell anyone how many recovery codes the account has left: not even in the page's data.
  expect(page).not.toHaveProperty("recoveryCodesLeft");

  const wrong = (await codeStep({ intent: "code", code: codeFor(member.secret, 20) }, cookie)) as FormReply;
  expect(wrong.init.status).toBe(400);
  expect(wrong.data.result.error?.code?.[0]).toBe(
    "認証コードが一致しません。認証アプリに表示されている最新のコードを入力してください",
  );

  // The step after the one the set-up used: what the app shows next.
  const signedIn = (await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie)) as Response;
  expect(signedIn.status).toBe(302);
  const set = signedIn.headers.getSetCookie().join("\n");
  expect(set).toMatch(/id_session=[^;]/);
  expect(set).toMatch(/id_code_step=;/);
});

test("the same code in the same 30-second window is refused on a second sign-in", async () => {
  const member = await memberWithTwoStep("reuse");
  const code = codeFor(member.secret, 1);
  const first = await passwordStep(member.email);
  expect(((await codeStep({ intent: "code", code }, first.cookie)) as Response).status).toBe(302);
  const second = await passwordStep(member.email);
  const refused = (await codeStep({ intent: "code", code }, second.cookie)) as FormReply;
  expect(refused.init.status).toBe(400);
  expect(refused.data.result.error?.code).toHaveLength(1);
});

test("a recovery code with the password signs in once: used up, recorded, mailed; the app is still asked for next time", async () => {
  const member = await memberWithTwoStep("recovery");
  const { cookie } = await passwordStep(member.email);
  const recoveryCode = member.recoveryCodes[3]!.toUpperCase().replace(/-/g, " ");
  const signedIn = (await codeStep({ intent: "recovery-code", recoveryCode, password: PASSWORD }, cookie)) as Response;
  expect(signedIn.status).toBe(302);
  expect(signedIn.headers.getSetCookie().join("\n")).toMatch(/id_session=[^;]/);

  const { db } = app;
  const events = await db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.kind, "recovery-code-used")));
  expect(events).toHaveLength(1);
  const mails = await db
    .select({ details: mailOutbox.details })
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, member.email));
  expect(mails.map((mail) => mail.details)).toContainEqual(
    expect.objectContaining({ change: "recoveryCodeUsed", recoveryCodesLeft: "9" }),
  );

  // Cognito still asks for the app's code: 2-step verification stayed on.
  const again = await passwordStep(member.email);
  expect(again.response.headers.get("Location")).toBe(CODE_STEP);
  const pageRequest = calls.get(`${CODE_STEP}?method=recovery-code`, again.cookie);
  const page = await twoStepPage.loader(calls.args(pageRequest, await calls.context(pageRequest, null)));
  expect(page).toMatchObject({ view: "recovery" });
  expect(page).not.toHaveProperty("recoveryCodesLeft");
  // The same recovery code a second time is refused, on its field, and nothing is signed in.
  const reused = (await codeStep(
    { intent: "recovery-code", recoveryCode: member.recoveryCodes[3]!, password: PASSWORD },
    again.cookie,
  )) as FormReply;
  expect(reused.init.status).toBe(400);
  expect(reused.data.result.error?.recoveryCode).toHaveLength(1);
});

test("a recovery code with a wrong password is refused and stays unused", async () => {
  const member = await memberWithTwoStep("recovery-password");
  const { cookie } = await passwordStep(member.email);
  const refused = (await codeStep(
    { intent: "recovery-code", recoveryCode: member.recoveryCodes[0]!, password: "not-the-password" },
    cookie,
  )) as FormReply;
  expect(refused.init.status).toBe(400);
  const signedIn = (await codeStep(
    { intent: "recovery-code", recoveryCode: member.recoveryCodes[0]!, password: PASSWORD },
    cookie,
  )) as Response;
  expect(signedIn.status).toBe(302);
  // Cognito still asks for the app's code after the failed attempt turned it off and on again.
  expect((await passwordStep(member.email)).response.headers.get("Location")).toBe(CODE_STEP);
});

test("without the step's cookie the code step sends the visitor back to sign in", async () => {
  const request = calls.get(CODE_STEP);
  const answer = (await settle(
    twoStepPage.loader(calls.args(request, await calls.context(request, null))),
  )) as Response;
  expect(answer.headers.get("Location")).toBe(SIGN_IN);
  const posted = (await codeStep({ intent: "code", code: "123456" }, "")) as Response;
  expect(posted.headers.get("Location")).toBe(SIGN_IN);
});

test("wrong codes count for the account: after five in a row the spec's attempt-limit message, no Cognito answer", async () => {
  const member = await memberWithTwoStep("limit");
  const { cookie } = await passwordStep(member.email);
  const statuses: number[] = [];
  let last: FormReply | null = null;
  // Five refusals in a row are free; the next try waits (app/domain/security/second-step-guard.server.ts).
  for (let attempt = 0; attempt < 6; attempt++) {
    last = (await codeStep({ intent: "code", code: codeFor(member.secret, 20) }, cookie)) as FormReply;
    statuses.push(last.init.status!);
  }
  expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  expect(last?.data.result.error?.[""]).toEqual(["ログイン試行回数の上限を超えました。数分後に再度お試しください"]);
  // The right code is refused too while the delay holds.
  const refused = (await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie)) as FormReply;
  expect(refused.init.status).toBe(429);
});

test("Cognito calls: the code step adds exactly one to a password sign-in; its page views make none", async () => {
  const member = await memberWithTwoStep("calls");
  const endpoint = app.stack.env.COGNITO_ENDPOINT!;
  await resetRequestCounts(endpoint);
  const { cookie } = await passwordStep(member.email);
  const afterPassword = await getRequestCounts(endpoint);
  for (const path of [CODE_STEP, `${CODE_STEP}?method=recovery-code`]) {
    const request = calls.get(path, cookie);
    await twoStepPage.loader(calls.args(request, await calls.context(request, null)));
  }
  expect(await getRequestCounts(endpoint)).toEqual(afterPassword);
  const signedIn = (await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie)) as Response;
  expect(signedIn.status).toBe(302);
  const after = await getRequestCounts(endpoint);
  expect(after.total - afterPassword.total).toBe(1);
  expect(after.byOperation).toMatchObject({ AdminInitiateAuth: 1, AdminRespondToAuthChallenge: 1 });
});

test("a member whose TOTP is off at Cognito while our flag says on: switched on again, recorded, mailed, and asked for the code", async () => {
  const member = await memberWithTwoStep("drift");
  // Switched off around our pages (or switching it back on after a recovery code's sign-in failed).
  await app.services.identity.setSoftwareTokenPreferenceOf({ username: member.sub, enabled: false });
  const again = await passwordStep(member.email);
  expect(again.response.headers.get("Location")).toBe(CODE_STEP);
  expect((await app.services.identity.getUser(member.sub)).mfaMethods).toEqual(["SOFTWARE_TOKEN_MFA"]);
  const events = await app.db.select().from(securityEvents).where(eq(securityEvents.sub, member.sub));
  expect(events.map((event) => event.kind)).toContain("second-factor-restored");
  const mails = await app.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, member.email));
  expect(mails.map((mail) => (mail.details as { change?: string }).change)).toContain("switchedOnAgain");
});

test("an authenticator set up at Cognito around our pages is removed at the next sign-in, recorded and mailed", async () => {
  const email = `unknown-totp-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  const sub = (await app.services.identity.getUser(email)).sub;
  // As a copied token with the self-service scope once could (a server token stands in for it here).
  const token = await serverTokenFor(app.services, { sub, email }, PASSWORD);
  const secret = await app.services.identity.associateSoftwareToken(token);
  await app.services.identity.verifySoftwareToken({ token, code: codeFor(secret) });
  await app.services.identity.setSoftwareTokenPreferenceOf({ username: sub, enabled: true });

  // The member, who set nothing up, signs in with the password alone, as our record says.
  const signedIn = await passwordStep(email);
  expect(signedIn.response.headers.get("Location")).not.toBe(CODE_STEP);
  expect(signedIn.response.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(true);
  expect((await app.services.identity.getUser(sub)).mfaMethods).toEqual([]);
  const events = await app.db.select().from(securityEvents).where(eq(securityEvents.sub, sub));
  expect(events.map((event) => event.kind)).toContain("unknown-second-factor-removed");
  const mails = await app.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
  expect(mails.map((mail) => (mail.details as { change?: string }).change)).toContain("unknownRemoved");
});

/** Polls the stand-in's counter until `operation` has been called `count` times (no timers in the test's logic). */
async function untilCalled(operation: string, count: number) {
  await expect
    .poll(async () => (await getRequestCounts(app.stack.env.COGNITO_ENDPOINT!)).byOperation[operation] ?? 0, {
      timeout: 60_000,
    })
    .toBeGreaterThanOrEqual(count);
}

const browser = (clientIp: string) => ({
  deviceKey: crypto.randomUUID(),
  userAgent: null,
  clientIp,
  locale: "ja" as const,
});

test("an attacker with the password alone, signing in while a recovery code's sign-in has TOTP off at Cognito, gets no session", async () => {
  const member = await memberWithTwoStep("window");
  const endpoint = app.stack.env.COGNITO_ENDPOINT!;
  const challenge = await signIn(app.services, { ...browser("127.0.0.1"), email: member.email, password: PASSWORD });
  if (challenge.kind !== "codeRequired") throw new Error(`the password step ended as ${challenge.kind}`);
  await resetRequestCounts(endpoint);
  // The window held open: the recovery code's own password sign-in waits at the stand-in after TOTP went off.
  await setFault(endpoint, { mode: "slow", delayMs: 3_000, operations: ["AdminInitiateAuth"], times: 1 });
  const recovery = signInWithRecoveryCode(app.services, {
    ...browser("127.0.0.1"),
    email: member.email,
    username: challenge.username,
    session: challenge.session,
    password: PASSWORD,
    recoveryCode: member.recoveryCodes[0]!,
  }).then(
    (result) => ({ kind: result.kind }),
    (error: unknown) => ({ kind: "refused", code: toDomainError(error)?.code }),
  );
  // Both at once: the attacker's password-only sign-in from another IP starts as soon as TOTP is off.
  const [recovered, attacker] = await Promise.all([
    recovery,
    untilCalled("AdminSetUserMFAPreference", 1).then(() =>
      signIn(app.services, { ...browser("203.0.113.9"), email: member.email, password: PASSWORD }).then(
        (result) => ({ kind: result.kind, code: undefined }),
        (error: unknown) => ({ kind: "refused", code: toDomainError(error)?.code }),
      ),
    ),
  ]);

  // Cognito gave the attacker tokens, yet our flag refused them: no session, and TOTP on again at once.
  expect(attacker).toEqual({ kind: "refused", code: "unavailable" });
  const { db } = app;
  const attackerSessions = await db
    .select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.ipAddress, "203.0.113.9")));
  expect(attackerSessions.filter((event) => event.kind === "sign-in")).toEqual([]);
  // The member's sign-in either got in before the attacker switched TOTP on again, or met the code challenge and
  // was refused with its recovery code given back; either way the app's code is asked for next.
  expect(["active", "refused"]).toContain(recovered.kind);
  if (recovered.kind === "refused") {
    expect(await countRecoveryCodesLeft(db, member.sub)).toBe(10);
  }
  const next = await app.services.identity.beginSignIn({ email: member.email, password: PASSWORD });
  expect(next.kind).toBe("softwareTokenRequired");
});

test("a recovery code's sign-in that died with TOTP off at Cognito is switched on again by the purge job, once its mark is a minute old", async () => {
  const member = await memberWithTwoStep("crash");
  const { db } = app;
  const diedAt = new Date();
  // The process died between the two switches: the mark written, TOTP off at Cognito, never on again.
  await markTotpOff(db, { sub: member.sub, now: diedAt });
  await app.services.identity.setSoftwareTokenPreferenceOf({ username: member.sub, enabled: false });
  const purgeDeps = { db, identity: app.services.identity, config: app.services.config };

  // A mark younger than the repair delay may be a sign-in still under way: left alone.
  const early = await runPurge(purgeDeps, new Date(diedAt.getTime() + 1_000));
  expect(early.totpSwitchedOn).toEqual({ switchedOn: 0, owed: 0 });
  expect((await app.services.identity.beginSignIn({ email: member.email, password: PASSWORD })).kind).toBe("tokens");

  const later = await runPurge(purgeDeps, new Date(diedAt.getTime() + TOTP_OFF_REPAIR_AFTER_MS + 1_000));
  expect(later.totpSwitchedOn).toEqual({ switchedOn: 1, owed: 0 });
  // Even a sign-in straight at Cognito, which our flag never sees, is asked for the code again.
  expect((await app.services.identity.beginSignIn({ email: member.email, password: PASSWORD })).kind).toBe(
    "softwareTokenRequired",
  );
  const [row] = await db.select().from(twoStepVerifications).where(eq(twoStepVerifications.sub, member.sub));
  expect(row?.totpOffSince).toBeNull();
});

test("a recovery code's sign-in leaves no mark behind when TOTP is on again", async () => {
  const member = await memberWithTwoStep("no-mark");
  const challenge = await signIn(app.services, { ...browser("127.0.0.1"), email: member.email, password: PASSWORD });
  if (challenge.kind !== "codeRequired") throw new Error(`the password step ended as ${challenge.kind}`);
  const signedIn = await signInWithRecoveryCode(app.services, {
    ...browser("127.0.0.1"),
    email: member.email,
    username: challenge.username,
    session: challenge.session,
    password: PASSWORD,
    recoveryCode: member.recoveryCodes[1]!,
  });
  expect(signedIn.kind).toBe("active");
  const [row] = await app.db.select().from(twoStepVerifications).where(eq(twoStepVerifications.sub, member.sub));
  expect(row?.totpOffSince).toBeNull();
});
