import { and, eq } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { expect, test } from "vitest";
import { mailOutbox, recoveryCodes, securityEvents, twoStepVerifications } from "~db/schema";
import { reauthenticate } from "~/domain/account/reauthentication.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import * as authenticatorPage from "~/routes/member/my-security-authenticator";
import { pathFor } from "~/routing/route-table";
import type { Clock } from "~/services.server";
import { cookieHeader } from "../../support/cookie-jar";
import { routeCalls, settle } from "../../support/route-calls";
import { MEMBER_PASSWORD, signedInMember as newSignedInMember } from "../../support/signed-in-members";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { sendDueMail } from "~/domain/mail/mail-outbox.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import { useTestServices } from "../../support/test-services";

// Turning 2-step verification on and off on /my/security/authenticator/, through the route module with real parts:
// PGlite (or PostgreSQL), the Cognito stand-in over HTTP (AssociateSoftwareToken, VerifySoftwareToken,
// SetUserMFAPreference). Codes are computed from the key the page shows, as an authenticator app would.
const ORIGIN = "http://localhost:3995";
const PASSWORD = MEMBER_PASSWORD;
const current = new Date();
const clock: Clock = { now: () => current };
// A database of its own: it sends the outbox's mail.
/** Low enough for a test to reach; each test's member stays under it otherwise. */
const TWO_STEP_CHANGE_LIMIT = 4;
const app = useTestServices({
  label: "two-step-setup",
  origin: ORIGIN,
  clock,
  ownDatabase: true,
  env: { RATE_LIMIT_TWO_STEP_CHANGE_PER_MEMBER: String(TWO_STEP_CHANGE_LIMIT) },
});
const calls = routeCalls(ORIGIN, () => app.services);
const PAGE = pathFor("my-security-authenticator", "ja");

const signedInMember = (label: string) => newSignedInMember(app.services, label);

async function view(member: SignedInMember, cookie?: string) {
  const request = calls.get(PAGE, cookie);
  return authenticatorPage.loader(calls.args(request, await calls.context(request, member)));
}

async function post(member: SignedInMember, fields: Record<string, string>, cookie?: string) {
  const request = calls.post(PAGE, fields, cookie);
  return settle(authenticatorPage.action(calls.args(request, await calls.context(request, member))));
}

const codeFor = (key: string, timestamp = Date.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(key.replace(/\s/g, "")), timestamp });

/** "Set up", then the page as it then shows: the sealed cookie and what it holds. */
async function startSetup(member: SignedInMember) {
  const started = (await post(member, { intent: "start" })) as Response;
  expect(started.status).toBe(302);
  const cookie = cookieHeader(started);
  expect(cookie).toMatch(/^id_authenticator_setup=/);
  const page = await view(member, cookie);
  return { cookie, page, key: page.setup!.key };
}

test("set up: the page shows a QR code and the key in groups of 4, the secret only in a sealed cookie", async () => {
  const member = await signedInMember("setup-view");
  const before = await view(member);
  expect(before.enabled).toBe(false);
  expect(before.setup).toBeNull();

  const { cookie, page, key } = await startSetup(member);
  expect(page.setup?.qrSvg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  expect(key).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
  // Sealed: the cookie does not hold the key in any readable form.
  expect(decodeURIComponent(cookie)).not.toContain(key.replace(/\s/g, ""));
  // Another member's session cannot open it.
  const other = await signedInMember("setup-other");
  expect((await view(other, cookie)).setup).toBeNull();
});

test("a wrong first code is refused on its field and turns nothing on; the right one turns it on with 10 recovery codes", async () => {
  const member = await signedInMember("setup-confirm");
  const { cookie, key } = await startSetup(member);

  const wrongCode = codeFor(key, Date.now() - 10 * 60_000);
  const refused = (await post(member, { intent: "confirm", code: wrongCode }, cookie)) as {
    data: { result: { error?: Record<string, string[]>; initialValue?: Record<string, unknown> } };
    init: ResponseInit;
  };
  expect(refused.init.status).toBe(400);
  expect(refused.data.result.error?.code?.[0]).toBeTruthy();
  expect(refused.data.result.initialValue?.code).toBeUndefined();
  expect((await view(member)).enabled).toBe(false);

  const confirmed = (await post(member, { intent: "confirm", code: codeFor(key) }, cookie)) as {
    data: { form: string; codes: string[] };
    init: ResponseInit;
  };
  expect(confirmed.data.form).toBe("codes");
  expect(confirmed.data.codes).toHaveLength(10);
  expect(new Set(confirmed.data.codes).size).toBe(10);
  for (const code of confirmed.data.codes) expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
  expect(new Headers(confirmed.init.headers).get("Set-Cookie")).toMatch(/^id_authenticator_setup=;/);

  const { db } = app;
  const stored = await db.select().from(recoveryCodes).where(eq(recoveryCodes.sub, member.sub));
  expect(stored).toHaveLength(10);
  // Hashed: no stored value is a code.
  for (const row of stored) expect(confirmed.data.codes).not.toContain(row.codeHash);
  const [flag] = await db.select().from(twoStepVerifications).where(eq(twoStepVerifications.sub, member.sub));
  expect(flag?.username).toBeTruthy();
  const events = await db
    .select({ kind: securityEvents.kind })
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, member.sub), eq(securityEvents.kind, "second-factor-added")));
  expect(events).toHaveLength(1);
  const mails = await app.db
    .select({ details: mailOutbox.details, recipient: mailOutbox.recipient })
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, member.email));
  expect(mails.map((mail) => (mail.details as { change?: string }).change)).toContain("enabled");

  const after = await view(member);
  expect(after).toMatchObject({ enabled: true, recoveryCodesLeft: 10, fewRecoveryCodes: false, setup: null });
});

test("make new codes replaces all ten; turning it off removes the flag and the codes, recorded and mailed", async () => {
  const member = await signedInMember("setup-off");
  const { cookie, key } = await startSetup(member);
  const first = (await post(member, { intent: "confirm", code: codeFor(key) }, cookie)) as {
    data: { codes: string[] };
  };
  const renewed = (await post(member, { intent: "new-codes" })) as { form: string; codes: string[] };
  expect(renewed.codes).toHaveLength(10);
  expect(renewed.codes.filter((code) => first.data.codes.includes(code))).toEqual([]);
  const { db } = app;
  expect(await db.select().from(recoveryCodes).where(eq(recoveryCodes.sub, member.sub))).toHaveLength(10);

  const off = (await post(member, { intent: "turn-off" })) as Response;
  expect(off.headers.get("Location")).toBe(pathFor("my-security", "ja"));
  expect(await db.select().from(twoStepVerifications).where(eq(twoStepVerifications.sub, member.sub))).toEqual([]);
  expect(await db.select().from(recoveryCodes).where(eq(recoveryCodes.sub, member.sub))).toEqual([]);
  const kinds = (
    await db.select({ kind: securityEvents.kind }).from(securityEvents).where(eq(securityEvents.sub, member.sub))
  ).map((row) => row.kind);
  expect(kinds).toEqual(
    expect.arrayContaining(["second-factor-added", "recovery-codes-replaced", "second-factor-removed"]),
  );
  const mails = await db
    .select({ details: mailOutbox.details })
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, member.email));
  // "Make new codes" is mailed too: every earlier code stopped working (finding 10 of the fourth review).
  expect(mails.map((mail) => (mail.details as { change?: string }).change).sort()).toEqual([
    "disabled",
    "enabled",
    "recoveryCodesReplaced",
  ]);
  expect((await view(member)).enabled).toBe(false);

  // The outbox renders both notices in the member's language when it sends them.
  await sendDueMail({ ...app.services, mailTexts: i18nextOutsideRequests, links: securityMailLinksFor(ORIGIN) });
  const sent = (await listMailboxEntries(mailboxDirectory(app.dataDir))).filter((entry) =>
    entry.to.includes(member.email),
  );
  expect(sent.map((entry) => entry.subject).sort()).toEqual([
    "2段階認証を有効にしました",
    "2段階認証を無効にしました",
    "新しいリカバリーコードを作りました",
  ]);
  expect(sent.find((entry) => entry.subject === "2段階認証を無効にしました")?.text).toContain(
    `${ORIGIN}/auth/forgot-password/`,
  );
});

test("without a recent password, the page and each of its posts go to the password step first", async () => {
  const member = await signedInMember("setup-stale");
  const stale = { ...member, passwordVerifiedAt: new Date(current.getTime() - 11 * 60_000) };
  const page = await settle(view(stale));
  expect((page as Response).headers.get("Location")).toMatch(/\/my\/reauthentication\/\?to=/);
  const started = (await post(stale, { intent: "start" })) as Response;
  expect(started.headers.get("Location")).toMatch(/\/my\/reauthentication\/\?to=/);
  expect(started.headers.get("Set-Cookie") ?? "").not.toMatch(/id_authenticator_setup=/);
});

test("with 2-step verification on, the password step takes the password and the app's code, checked before anything", async () => {
  const member = await signedInMember("setup-reauth");
  const { cookie, key } = await startSetup(member);
  await post(member, { intent: "confirm", code: codeFor(key) }, cookie);
  const input = { sub: member.sub, email: member.email, sessionId: member.sessionId, clientIp: "127.0.0.1" };
  const step = { ...input, locale: "ja" as const };
  await expect(reauthenticate(app.services, { ...step, password: "not-the-password" })).rejects.toMatchObject({
    code: "currentPasswordMismatch",
  });
  // The password alone is no longer enough: the step makes the server token credential changes take.
  await expect(reauthenticate(app.services, { ...step, password: PASSWORD })).rejects.toMatchObject({
    code: "codeRequired",
  });
  await expect(reauthenticate(app.services, { ...step, password: PASSWORD, code: "000000" })).rejects.toMatchObject({
    code: "authenticatorCodeMismatch",
  });
  await expect(
    reauthenticate(app.services, { ...step, password: PASSWORD, code: codeFor(key, Date.now() + 30_000) }),
  ).resolves.toBeUndefined();
  // Another member's session cannot pass with this member's address and password.
  const other = await signedInMember("setup-reauth-other");
  await expect(
    reauthenticate(app.services, { ...step, sub: other.sub, sessionId: other.sessionId, password: PASSWORD }),
  ).rejects.toMatchObject({ code: "currentPasswordMismatch" });
});

/** The toast a redirect carries, decoded from its signed cookie (base64 JSON before the signature). */
function toastOf(response: Response): string {
  const pair = response.headers.getSetCookie().find((cookie) => cookie.startsWith("toast=")) ?? "";
  const raw = decodeURIComponent(pair.split(";")[0]!.slice("toast=".length));
  return Buffer.from(raw.slice(0, raw.lastIndexOf(".")), "base64").toString("utf8");
}

test("setting up and turning off are limited per member, and turning off what is off says so", async () => {
  const member = await signedInMember("setup-limit");
  // Turning off when it is not on changes nothing and does not say it did.
  const notOn = (await post(member, { intent: "turn-off" })) as Response;
  expect(notOn.headers.get("Location")).toBe(pathFor("my-security", "ja"));
  expect(toastOf(notOn)).toContain("twoStepNotOn");
  expect(toastOf(notOn)).toContain('"type":"error"');
  // Each "set up" asks Cognito for a new secret: past the limit, the attempt-limit message and no Cognito call.
  for (let started = 2; started <= TWO_STEP_CHANGE_LIMIT; started++) {
    expect(((await post(member, { intent: "start" })) as Response).headers.get("Set-Cookie")).toMatch(
      /id_authenticator_setup=/,
    );
  }
  const limited = (await post(member, { intent: "start" })) as Response;
  expect(limited.headers.get("Set-Cookie") ?? "").not.toMatch(/id_authenticator_setup=[^;]/);
  expect(toastOf(limited)).toContain("attemptLimitExceeded");
});
