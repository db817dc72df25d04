import { and, eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { expect, test } from "vitest";
import { mailOutbox, secondStepChallenges, secondStepFailures, securityEvents, twoStepVerifications } from "~db/schema";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { formatJapanTime, sendDueMail } from "~/domain/mail/mail-outbox.server";
import {
  SECOND_STEP_FAILURE_CEILING,
  SECOND_STEP_FIRST_DELAY_MS,
  SECOND_STEP_MAX_DELAY_MS,
  secondStepDelayMs,
} from "~/domain/security/second-step-guard.server";
import {
  SECOND_STEP_ABANDONED_AFTER_MS,
  reportUnfinishedSecondSteps,
} from "~/domain/security/unfinished-second-steps.server";
import { describeActivity } from "~/components/security-activity-rows.server";
import { listSecurityActivity } from "~/domain/security/security-activity.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import type { Locale } from "~/i18n/locales";
import { requestInfoContext } from "~/router-context.server";
import * as staffSignInPage from "~/routes/default/admin-sign-in";
import * as signInPage from "~/routes/default/auth-sign-in";
import * as twoStepPage from "~/routes/default/auth-two-step";
import { pathFor } from "~/routing/route-table";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import type { Clock } from "~/services.server";
import { nextAuthenticatorCode } from "../../support/admin-members";
import { memberWithTwoStepIn } from "../../support/signed-in-members";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { cookieHeader } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { getRequestCounts } from "../../support/stand-ins/stand-in/harness-client";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// The sign-in's second step under attack (docs/security.md, "Rate limits"): refused codes in a row per account, delays
// that grow and never reset on a clock, a ceiling only a password reset lifts, and a right password left without its
// second step recorded and mailed. Through the sign-in and code-step route modules on real parts: the stand-in's
// SOFTWARE_TOKEN_MFA challenge over HTTP, PGlite (or PostgreSQL), the SMTP capture; the app's clock is the test's.
const ORIGIN = "http://localhost:3997";
const PASSWORD = "correct-horse-battery";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";
const ATTACKER_IP = "203.0.113.77";
const STEP_MS = 30_000;
let current = new Date();
const clock: Clock = { now: () => current };
const moveClock = (ms: number) => (current = new Date(current.getTime() + ms));
// It sends the outbox's mail and reports every quiet challenge it finds.
const app = useTestServices({ label: "second-step-lockout", origin: ORIGIN, clock, ownDatabase: true });
const calls = routeCalls(ORIGIN, () => app.services);

const codeFor = (secret: string, steps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * STEP_MS });
/** Far from any code the stand-in accepts now. */
const wrongCodeFor = (secret: string) => codeFor(secret, 20);

/** A member who turned on 2-step verification; the code that turned it on used up the current time step. */
const memberWithTwoStep = (label: string) => memberWithTwoStepIn(app.services, label, PASSWORD);

async function contextFor(request: Request) {
  const context = await calls.context(request, null);
  context.set(requestInfoContext, { requestId: "second-step-lockout", nonce: "", clientIp: ATTACKER_IP });
  return context;
}

/** The sign-in form's post with the right password, from Firefox: the cookies the code step then needs. */
async function passwordStep(email: string, locale: Locale = "ja", password = PASSWORD) {
  const request = calls.post(pathFor("auth-sign-in", locale), { intent: "sign-in", email, password });
  request.headers.set("User-Agent", FIREFOX);
  const response = (await settle(signInPage.action(calls.args(request, await contextFor(request))))) as Response;
  expect(response.headers.get("Location")).toBe(pathFor("auth-two-step", locale));
  return cookieHeader(response);
}

type FormReply = { data: { result: { error?: Record<string, string[]> } }; init: ResponseInit };

async function codeStep(fields: Record<string, string>, cookie: string) {
  const request = calls.post(pathFor("auth-two-step", "ja"), fields, cookie);
  return (await settle(twoStepPage.action(calls.args(request, await contextFor(request))))) as Response | FormReply;
}

const statusOf = (answer: Response | FormReply) => (answer instanceof Response ? answer.status : answer.init.status);
const wrongCode = (member: { secret: string }, cookie: string) =>
  codeStep({ intent: "code", code: wrongCodeFor(member.secret) }, cookie).then(statusOf);
const codeAnswers = async () => (await getRequestCounts(app.stack.env.COGNITO_ENDPOINT!)).byOperation;

async function failuresOf(member: { sub: string }) {
  const [row] = await app.db
    .select({ count: secondStepFailures.consecutiveFailures })
    .from(secondStepFailures)
    .innerJoin(twoStepVerifications, eq(twoStepVerifications.username, secondStepFailures.username))
    .where(eq(twoStepVerifications.sub, member.sub));
  return row?.count ?? 0;
}

test("the delays: five refusals free, then 30 s doubling up to an hour", () => {
  expect([0, 4, 5, 6, 7, 11, 12, 49].map(secondStepDelayMs)).toEqual([
    0,
    0,
    SECOND_STEP_FIRST_DELAY_MS,
    2 * SECOND_STEP_FIRST_DELAY_MS,
    4 * SECOND_STEP_FIRST_DELAY_MS,
    64 * SECOND_STEP_FIRST_DELAY_MS,
    SECOND_STEP_MAX_DELAY_MS,
    SECOND_STEP_MAX_DELAY_MS,
  ]);
  expect(SECOND_STEP_FAILURE_CEILING).toBeLessThanOrEqual(100);
});

test("wrong codes escalate per account: five free, then each waits longer, unasked of Cognito; a day later the count still stands", async () => {
  const member = await memberWithTwoStep("escalate");
  const cookie = await passwordStep(member.email);
  for (let attempt = 0; attempt < 5; attempt++) expect(await wrongCode(member, cookie)).toBe(400);

  const before = await codeAnswers();
  const paused = (await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie)) as FormReply;
  // Even the right code waits: the spec's attempt-limit message, and Cognito is not asked.
  expect(paused.init.status).toBe(429);
  expect(paused.data.result.error?.[""]).toEqual(["ログイン試行回数の上限を超えました。数分後に再度お試しください"]);
  expect(await codeAnswers()).toEqual(before);

  moveClock(SECOND_STEP_FIRST_DELAY_MS);
  expect(await wrongCode(member, cookie)).toBe(400);
  // Six refusals: a minute now.
  moveClock(SECOND_STEP_FIRST_DELAY_MS);
  expect(await wrongCode(member, cookie)).toBe(429);
  moveClock(SECOND_STEP_FIRST_DELAY_MS);
  expect(await wrongCode(member, cookie)).toBe(400);

  // A day later (a fresh password step, too) the seven refusals still count: two minutes after the next one.
  moveClock(24 * 60 * 60 * 1000);
  const later = await passwordStep(member.email);
  expect(await wrongCode(member, later)).toBe(400);
  expect(await failuresOf(member)).toBe(8);
  moveClock(3 * SECOND_STEP_FIRST_DELAY_MS);
  expect(await wrongCode(member, later)).toBe(429);
});

test("a burst of tries at once passes a delay only once, whichever connection each takes", async () => {
  const member = await memberWithTwoStep("burst");
  const cookie = await passwordStep(member.email);
  for (let attempt = 0; attempt < 5; attempt++) await wrongCode(member, cookie);
  moveClock(SECOND_STEP_FIRST_DELAY_MS);
  const statuses = await Promise.all(Array.from({ length: 6 }, () => wrongCode(member, cookie)));
  expect(statuses.sort()).toEqual([400, 429, 429, 429, 429, 429]);
  expect(await failuresOf(member)).toBe(6);
});

test("the app's right code clears the count: the next typos are free again", async () => {
  const member = await memberWithTwoStep("clear");
  const cookie = await passwordStep(member.email);
  for (let attempt = 0; attempt < 6; attempt++) await wrongCode(member, cookie);
  moveClock(2 * SECOND_STEP_FIRST_DELAY_MS);
  const signedIn = await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie);
  expect(statusOf(signedIn)).toBe(302);
  expect(await failuresOf(member)).toBe(0);

  const again = await passwordStep(member.email);
  for (let attempt = 0; attempt < 5; attempt++) expect(await wrongCode(member, again)).toBe(400);
});

test("at the ceiling the code step and recovery codes are refused, the page says to reset the password; a reset opens it again", async () => {
  const member = await memberWithTwoStep("ceiling");
  // The ceiling takes about 39 hours of delays: they pass on the app's clock, which starts three days back so that
  // the reset below (which signs the member out everywhere at its time) comes before Cognito's next tokens.
  current = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
  const cookie = await passwordStep(member.email);
  for (let attempt = 0; attempt < SECOND_STEP_FAILURE_CEILING; attempt++) {
    moveClock(secondStepDelayMs(attempt));
    expect(await wrongCode(member, cookie)).toBe(400);
  }
  moveClock(SECOND_STEP_MAX_DELAY_MS * 24);
  const locked = (await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, cookie)) as FormReply;
  expect(locked.init.status).toBe(429);
  expect(locked.data.result.error?.[""]).toEqual([
    "コードの誤りが続いたため、このアカウントのコード入力を停止しています。パスワードを再設定すると、再び入力できます",
  ]);
  const recovery = await codeStep(
    { intent: "recovery-code", recoveryCode: member.recoveryCodes[0]!, password: PASSWORD },
    cookie,
  );
  expect(statusOf(recovery)).toBe(429);
  const pageRequest = calls.get(pathFor("auth-two-step", "ja"), cookie);
  const page = await twoStepPage.loader(calls.args(pageRequest, await contextFor(pageRequest)));
  expect(page.view).toBe("locked");

  // The member resets the password with the mailed code (forgot-password): the step takes codes again.
  current = new Date(Date.now() - 2_000);
  await requestPasswordReset(app.services, member.email, "ja");
  const resetCode = (await listMailboxEntries(mailboxDirectory(app.dataDir))).find(
    (entry) => entry.kind === "code" && entry.to.includes(member.email),
  )?.code;
  const newPassword = "plum-kettle-harbour-42";
  await confirmPasswordReset(app.services, {
    email: member.email,
    code: resetCode!,
    password: newPassword,
    clientIp: "127.0.0.1",
    locale: "ja",
  });
  const reopened = await passwordStep(member.email, "ja", newPassword);
  expect(statusOf(await codeStep({ intent: "code", code: codeFor(member.secret, 1) }, reopened))).toBe(302);
  expect(await failuresOf(member)).toBe(0);
});

test("a right password then wrong codes is recorded once and mailed in the member's language: when (Japan time), device, browser, IP, what to do", async () => {
  const ja = await memberWithTwoStep("unfinished-ja");
  const en = await memberWithTwoStep("unfinished-en");
  const startedAt = current;
  const jaCookie = await passwordStep(ja.email, "ja");
  for (let attempt = 0; attempt < 3; attempt++) await wrongCode(ja, jaCookie);
  const enCookie = await passwordStep(en.email, "en");
  for (let attempt = 0; attempt < 2; attempt++) await wrongCode(en, enCookie);

  // Not before the challenges have been quiet for 15 minutes; then once, however many instances look.
  const members = [ja.sub, en.sub];
  const ours = (subs: string[]) => subs.filter((sub) => members.includes(sub));
  moveClock(SECOND_STEP_ABANDONED_AFTER_MS - 1_000);
  expect(ours(await reportUnfinishedSecondSteps(app.db, current))).toEqual([]);
  moveClock(2_000);
  const reports = await Promise.all([
    reportUnfinishedSecondSteps(app.db, current),
    reportUnfinishedSecondSteps(app.db, current),
  ]);
  expect(ours(reports.flat()).sort()).toEqual([...members].sort());
  expect(ours(await reportUnfinishedSecondSteps(app.db, current))).toEqual([]);

  for (const [member, refused] of [
    [ja, 3],
    [en, 2],
  ] as const) {
    const events = await app.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.kind, "second-step-failed")));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      attempts: refused,
      ipAddress: ATTACKER_IP,
      browser: "Firefox 140",
      occurredAt: startedAt,
    });
  }
  for (const sub of members) {
    expect(await app.db.select().from(secondStepChallenges).where(eq(secondStepChallenges.sub, sub))).toEqual([]);
  }
  // The member's activity on /my/security/ lists it with its count.
  const activity = await listSecurityActivity(app.db, {
    sub: en.sub,
    currentSessionId: crypto.randomUUID(),
    cursor: null,
    now: current,
  });
  const rows = describeActivity(activity.entries, i18nextOutsideRequests, "en");
  expect(rows.map((row) => row.what)).toContainEqual(
    expect.stringMatching(/^Password entered, 2-step verification not completed \(password at .+, 2 wrong codes\)$/),
  );

  await sendDueMail({
    db: app.db,
    mailer: app.services.mailer,
    clock,
    mailTexts: i18nextOutsideRequests,
    links: securityMailLinksFor(ORIGIN),
  });
  const JA_SUBJECT = "パスワードは入力されましたが、2段階認証が完了していません";
  const EN_SUBJECT = "Your password was entered, but 2-step verification was not completed";
  const mails = await listMailboxEntries(mailboxDirectory(app.dataDir));
  const reportsTo = (email: string) =>
    mails.filter((mail) => mail.to.includes(email) && [JA_SUBJECT, EN_SUBJECT].includes(mail.subject));
  // One each, in the language of the page the password was typed on (neither member chose one).
  expect(reportsTo(ja.email).map((mail) => mail.subject)).toEqual([JA_SUBJECT]);
  expect(reportsTo(en.email).map((mail) => mail.subject)).toEqual([EN_SUBJECT]);
  const [jaMail] = reportsTo(ja.email);
  const [enMail] = reportsTo(en.email);
  const when = formatJapanTime(startedAt.toISOString());
  for (const line of [
    `日時：${when}（日本時間）`,
    "ブラウザ：Firefox 140",
    `IPアドレス：${ATTACKER_IP}`,
    "誤ったコードの入力：3 回",
    "パスワードを再設定してください",
    `${ORIGIN}/auth/forgot-password/`,
  ]) {
    expect(jaMail!.text).toContain(line);
  }
  expect(jaMail!.text).toMatch(/デバイス：Windows/);
  for (const line of [
    `When: ${when} (Japan time)`,
    "Browser: Firefox 140",
    `IP address: ${ATTACKER_IP}`,
    "Wrong codes entered: 2",
    "change your password now",
    `${ORIGIN}/en/auth/forgot-password/`,
  ]) {
    expect(enMail!.text).toContain(line);
  }
  for (const email of [ja.email, en.email]) {
    const outbox = await app.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    const reports = outbox.filter((row) => row.kind === "secondStepUnfinished");
    expect(reports.map((row) => row.sentAt !== null)).toEqual([true]);
  }
});

test("a right password left at the code step is reported once, with no code tried; one finished in its browser is not", async () => {
  const abandoned = await memberWithTwoStep("abandoned");
  const finished = await memberWithTwoStep("finished");
  await passwordStep(abandoned.email);
  const cookie = await passwordStep(finished.email);
  await wrongCode(finished, cookie);
  expect(statusOf(await codeStep({ intent: "code", code: codeFor(finished.secret, 1) }, cookie))).toBe(302);

  moveClock(SECOND_STEP_ABANDONED_AFTER_MS + 1_000);
  const first = await reportUnfinishedSecondSteps(app.db, current);
  expect(first).toContain(abandoned.sub);
  expect(first).not.toContain(finished.sub);
  expect(await reportUnfinishedSecondSteps(app.db, current)).not.toContain(abandoned.sub);
  const reported = async (member: { sub: string }) =>
    app.db
      .select({ attempts: securityEvents.attempts })
      .from(securityEvents)
      .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.kind, "second-step-failed")));
  expect(await reported(abandoned)).toEqual([{ attempts: 0 }]);
  expect(await reported(finished)).toEqual([]);
  const queued = await app.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, abandoned.email));
  expect(queued.filter((row) => row.kind === "secondStepUnfinished")).toHaveLength(1);
});

test("the staff sign-in's codes guess the same authenticator: they count on the account's one count with the members'", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "second-step-staff");
  const staffPost = async (fields: Record<string, string>, cookie = "") => {
    const request = calls.post(pathFor("admin-sign-in", "ja"), fields, cookie);
    return (await settle(staffSignInPage.action(calls.args(request, await contextFor(request))))) as
      Response | FormReply;
  };
  const staffCookie = cookieHeader(
    (await staffPost({ intent: "password", email: staff.email, password: staff.password })) as Response,
  );
  const memberCookie = await passwordStep(staff.email, "ja", staff.password);
  const wrong = { intent: "code", code: wrongCodeFor(staff.totpSecret) };
  for (let attempt = 0; attempt < 3; attempt++) expect(statusOf(await codeStep(wrong, memberCookie))).toBe(400);
  for (let attempt = 0; attempt < 2; attempt++) expect(statusOf(await staffPost(wrong, staffCookie))).toBe(400);
  const paused = (await staffPost(
    { intent: "code", code: await nextAuthenticatorCode(staff) },
    staffCookie,
  )) as FormReply;
  expect(paused.init.status).toBe(429);
  expect(paused.data.result.error?.[""]).toEqual(["ログイン試行回数の上限を超えました。数分後に再度お試しください"]);
});
