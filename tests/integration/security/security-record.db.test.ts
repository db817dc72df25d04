import { asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { DatabaseHandle } from "~db/client.server";
import { memberProfiles, securityEvents } from "~db/schema";
import { createDomainIdentity } from "~/composition-root.server";
import { parseConfig } from "~/config.server";
import { confirmEmailChange, requestEmailChange } from "~/domain/account/email-change.server";
import { changePassword } from "~/domain/account/password-change.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { signIn } from "~/domain/account/sign-in.server";
import { refreshDirectoryEntry } from "~/domain/directory/member-directory.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { runPurge } from "~/domain/jobs/purge.server";
import { CANCELLED_DATA_RETENTION_MONTHS } from "~/domain/account/withdrawal.server";
import {
  SECURITY_EVENT_RETENTION_DAYS,
  recordSecurityEvent,
  recordSignUp,
} from "~/domain/security/security-record.server";
import { deactivateDeviceForPendingSignIn } from "~/domain/sessions/device-admission.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";
import type { StandIns } from "~/server/start-server";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { makeTempDir } from "../../support/temp-dir";
import { openTestDatabase } from "../../support/test-database";

/**
 * Every flow writes its row into the member's security record, in the flow's own transaction, on the real parts:
 * the Cognito stand-in over HTTP through the AWS SDK, the SMTP capture, PGlite (or PostgreSQL in CI).
 */
const temp = makeTempDir("security-record");
let stack: StandIns;
let handle: DatabaseHandle;
const PASSWORD = "correct-horse-battery";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0";
const IP = "203.0.113.7";
const DAY_MS = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  handle = openTestDatabase(temp.dir);
  await handle.migrate();
}, 150_000);

afterAll(async () => {
  await handle?.close();
  await stack?.stop();
  temp.remove();
});

function services(options: { now?: Date; deviceLimit?: number } = {}) {
  const { now } = options;
  return {
    db: handle.db,
    identity: createDomainIdentity(cognitoConfigOf(stack), handle.db),
    mailer: withDomainErrors(createMailer({ smtpUrl: stack.env.SMTP_URL!, mailFrom: "ID <no-reply@localhost>" })),
    config: { ...parseConfig({}), sessionSecrets: ["s".repeat(32)], deviceLimit: options.deviceLimit ?? 3 },
    clock: { now: () => now ?? new Date() },
    confirmationLink: emailUpdateLinkFor("http://localhost:3999"),
    mailTexts: i18nextOutsideRequests,
  };
}

/** A confirmed member, in the member directory as the reconcile job would put them. */
async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const { identity } = services();
  await identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  const { sub } = await identity.getUser(email);
  await refreshDirectoryEntry(services(), sub);
  return { sub, email };
}

function signInAs(
  member: { email: string },
  options: { deviceKey?: string; password?: string; now?: Date; deviceLimit?: number } = {},
) {
  return signIn(services(options), {
    email: member.email,
    password: options.password ?? PASSWORD,
    deviceKey: options.deviceKey ?? crypto.randomUUID(),
    userAgent: FIREFOX,
    clientIp: IP,
    locale: "ja",
  });
}

async function activeSignIn(member: { email: string }, options: Parameters<typeof signInAs>[1] = {}) {
  const result = await signInAs(member, options);
  if (result.kind !== "active") throw new Error(`expected an active sign-in, got ${result.kind}`);
  return result;
}

/** The trigger refused the statement (drizzle wraps the database's error: the trigger's message is its cause's). */
async function expectAppendOnlyRefusal(query: PromiseLike<unknown>) {
  const error = await Promise.resolve(query).then(
    () => null,
    (failure: unknown) => failure,
  );
  expect(String((error as { cause?: unknown } | null)?.cause)).toMatch(/security_events is append-only/);
}

function eventsOf(sub: string) {
  return handle.db.select().from(securityEvents).where(eq(securityEvents.sub, sub)).orderBy(asc(securityEvents.id));
}

test("a sign-in records its session, device, browser and IP, and whether the browser is new to the member", async () => {
  const member = await createMember("record-sign-in");
  const first = await activeSignIn(member, { deviceKey: "browser-a" });
  const again = await activeSignIn(member, { deviceKey: "browser-a" });
  const other = await activeSignIn(member, { deviceKey: "browser-b" });

  expect(first.signIn?.newBrowser).toBe(true);
  expect(again.signIn?.newBrowser).toBe(false);
  expect(other.signIn?.newBrowser).toBe(true);
  // The member's first sign-in ever is the only one that had none before it (no alert for it).
  expect([first, again, other].map((result) => result.signIn?.signedInBefore)).toEqual([false, true, true]);
  const events = await eventsOf(member.sub);
  expect(events).toHaveLength(3);
  expect(events[0]).toMatchObject({
    kind: "sign-in",
    sessionId: first.sessionId,
    deviceName: "Windows 10",
    browser: "Firefox 140",
    ipAddress: IP,
    newBrowser: true,
  });
  expect(events.map((event) => event.sessionId)).toEqual([first.sessionId, again.sessionId, other.sessionId]);
  // The browser's key is not kept in clear.
  expect(events[0]!.deviceKeyHash).not.toContain("browser-a");
});

test("the browser that confirmed the sign-up is known: its first sign-in is not from a new browser", async () => {
  const member = await createMember("record-sign-up");
  await recordSignUp(handle.db, {
    sub: member.sub,
    email: member.email,
    deviceKey: "sign-up-browser",
    deviceName: "Windows 10",
    browser: "Firefox 140",
    ipAddress: IP,
    occurredAt: new Date(),
  });
  const fromSignUpBrowser = await activeSignIn(member, { deviceKey: "sign-up-browser" });
  expect(fromSignUpBrowser.signIn).toMatchObject({ newBrowser: false, signedInBefore: false });
  expect((await eventsOf(member.sub)).map((event) => event.kind)).toEqual(["signed-up", "sign-in"]);
});

test("wrong passwords for an account are counted in one row per hour; an unknown address records nothing", async () => {
  const member = await createMember("record-refused");
  const hour = new Date("2026-11-21T03:00:00Z");
  const at = (minutes: number) => new Date(hour.getTime() + minutes * 60_000);
  // Three in one hour, one in the next (the windows are REFUSED_SIGN_IN_WINDOW_MS long, on the hour).
  for (const minutes of [1, 20, 59]) {
    await expect(signInAs(member, { password: "not-the-password", now: at(minutes) })).rejects.toMatchObject({
      code: "invalidCredentials",
    });
  }
  await expect(signInAs(member, { password: "not-the-password", now: at(61) })).rejects.toThrow();
  await expect(
    signInAs({ email: `nobody-${crypto.randomUUID()}@example.jp` }, { password: "x-password", now: at(2) }),
  ).rejects.toThrow();

  const events = await eventsOf(member.sub);
  expect(
    events.map(({ kind, occurredAt, attempts, lastOccurredAt, ipAddress }) => ({
      kind,
      occurredAt,
      attempts,
      lastOccurredAt,
      ipAddress,
    })),
  ).toEqual([
    { kind: "sign-in-refused", occurredAt: hour, attempts: 3, lastOccurredAt: at(59), ipAddress: IP },
    { kind: "sign-in-refused", occurredAt: at(60), attempts: 1, lastOccurredAt: at(61), ipAddress: IP },
  ]);
});

test("sign-out, deactivation, 'this wasn't me' and 'log out of every device but this browser' each record their event", async () => {
  const member = await createMember("record-endings");
  const [a, b, c, d] = [
    await activeSignIn(member),
    await activeSignIn(member),
    await activeSignIn(member),
    await activeSignIn(member, { deviceLimit: 4 }),
  ];
  const record = (kind: "sign-out" | "device-deactivated" | "session-reported" | "other-sessions-ended") => ({
    record: { kind, clientIp: IP },
  });
  await endSessions(services(), { sessionId: a.sessionId }, record("sign-out"));
  await endSessions(services(), { sub: member.sub, device: { sessionId: b.sessionId } }, record("device-deactivated"));
  await endSessions(services(), { sub: member.sub, device: { sessionId: c.sessionId } }, record("session-reported"));
  const e = await activeSignIn(member);
  await endSessions(services(), { sub: member.sub, allBut: e.sessionId }, record("other-sessions-ended"));

  const endings = (await eventsOf(member.sub)).filter((event) => event.kind !== "sign-in");
  expect(endings.map(({ kind, sessionId, ipAddress }) => ({ kind, sessionId, ipAddress }))).toEqual([
    { kind: "sign-out", sessionId: a.sessionId, ipAddress: IP },
    { kind: "device-deactivated", sessionId: b.sessionId, ipAddress: IP },
    { kind: "session-reported", sessionId: c.sessionId, ipAddress: IP },
    { kind: "other-sessions-ended", sessionId: null, ipAddress: IP },
  ]);
  expect(endings[1]).toMatchObject({ deviceName: "Windows 10", browser: "Firefox 140" });
  // Nothing left to end: nothing recorded.
  await endSessions(services(), { sub: member.sub, allBut: e.sessionId }, record("other-sessions-ended"));
  await endSessions(services(), { sessionId: d.sessionId }, record("sign-out"));
  expect((await eventsOf(member.sub)).filter((event) => event.kind !== "sign-in")).toHaveLength(4);
});

test("a device deactivated on the device-limit screen is recorded", async () => {
  const member = await createMember("record-limit-screen");
  const first = await activeSignIn(member, { deviceLimit: 1 });
  const held = await signInAs(member, { deviceLimit: 1 });
  if (held.kind !== "deviceLimit") throw new Error(`expected the device limit, got ${held.kind}`);
  const ended = await deactivateDeviceForPendingSignIn(services({ deviceLimit: 1 }), {
    pendingSessionId: held.sessionId,
    deviceSessionId: first.sessionId,
    clientIp: IP,
  });
  expect(ended?.sessionId).toBe(first.sessionId);
  const events = await eventsOf(member.sub);
  expect(events.map((event) => event.kind)).toEqual(["sign-in", "sign-in", "device-deactivated"]);
  expect(events[2]).toMatchObject({ sessionId: first.sessionId, ipAddress: IP });
});

test("a password change, a password reset and a confirmed e-mail change are recorded", async () => {
  const member = await createMember("record-credentials");
  const session = await activeSignIn(member);
  await changePassword(services(), {
    sub: member.sub,
    email: member.email,
    sessionId: session.sessionId,
    currentPassword: PASSWORD,
    newPassword: "violet harbour quartz lantern 42",
    familyName: null,
    givenName: null,
    clientIp: IP,
    locale: "ja",
  });

  await requestPasswordReset(services(), member.email, "ja");
  const entries = await listMailboxEntries(mailboxDirectory(temp.dir));
  const code = entries.find((entry) => entry.kind === "code" && entry.to.includes(member.email))?.code;
  await confirmPasswordReset(services(), {
    email: member.email,
    code: code!,
    password: "amber glacier piano thimble 17",
    clientIp: IP,
    locale: "ja",
  });

  const newEmail = `moved-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await requestEmailChange(services(), { sub: member.sub, currentEmail: member.email, newEmail, locale: "ja" });
  const mail = (await listMailboxEntries(mailboxDirectory(temp.dir))).find(
    (entry) => entry.kind === "mail" && entry.to.includes(newEmail),
  );
  const token = /email-update\/([\w-]+)\//.exec(mail?.text ?? "")?.[1];
  expect((await confirmEmailChange(services(), { token: token!, clientIp: IP })).kind).toBe("changed");

  const events = (await eventsOf(member.sub)).filter((event) => event.kind !== "sign-in");
  expect(events.map(({ kind, sessionId, ipAddress }) => ({ kind, sessionId, ipAddress }))).toEqual([
    { kind: "password-changed", sessionId: session.sessionId, ipAddress: IP },
    { kind: "password-reset", sessionId: null, ipAddress: IP },
    { kind: "email-changed", sessionId: null, ipAddress: IP },
  ]);
});

test("the record is append-only: an event cannot be changed or deleted, a refused-sign-in count only grows", async () => {
  const sub = crypto.randomUUID();
  await recordSecurityEvent(handle.db, { sub, kind: "sign-out", ipAddress: IP });
  await expectAppendOnlyRefusal(
    handle.db.update(securityEvents).set({ ipAddress: "198.51.100.1" }).where(eq(securityEvents.sub, sub)),
  );
  await expectAppendOnlyRefusal(handle.db.delete(securityEvents).where(eq(securityEvents.sub, sub)));

  await handle.db.insert(securityEvents).values({ sub, kind: "sign-in-refused", occurredAt: new Date(), attempts: 2 });
  const refused = sql`${securityEvents.sub} = ${sub} and ${securityEvents.kind} = 'sign-in-refused'`;
  await expectAppendOnlyRefusal(handle.db.update(securityEvents).set({ attempts: 1 }).where(refused));
  await expectAppendOnlyRefusal(
    handle.db.update(securityEvents).set({ attempts: 3, deviceName: "forged" }).where(refused),
  );
  await handle.db.update(securityEvents).set({ attempts: 3 }).where(refused);
  expect((await eventsOf(sub)).map((event) => [event.kind, event.attempts])).toEqual([
    ["sign-out", 1],
    ["sign-in-refused", 3],
  ]);
});

test("the purge deletes events after 400 days, and a cancelled member's whole record with their data at 13 months", async () => {
  const now = new Date("2026-11-21T03:00:00Z");
  const kept = crypto.randomUUID();
  const old = (days: number) => new Date(now.getTime() - days * DAY_MS);
  await recordSecurityEvent(handle.db, {
    sub: kept,
    kind: "sign-out",
    occurredAt: old(SECURITY_EVENT_RETENTION_DAYS + 1),
  });
  await recordSecurityEvent(handle.db, {
    sub: kept,
    kind: "sign-out",
    occurredAt: old(SECURITY_EVENT_RETENTION_DAYS - 1),
  });

  const cancelled = crypto.randomUUID();
  const cancelledAt = new Date(now.getTime());
  cancelledAt.setUTCMonth(cancelledAt.getUTCMonth() - CANCELLED_DATA_RETENTION_MONTHS - 1);
  await handle.db.insert(memberProfiles).values({ sub: cancelled, cancelledAt, cognitoDeletedAt: cancelledAt });
  await recordSecurityEvent(handle.db, { sub: cancelled, kind: "sign-out", occurredAt: old(20) });

  const report = await runPurge({ db: handle.db, config: { sessionSecrets: ["s".repeat(32)] } }, now);

  expect(report.securityEvents).toBeGreaterThanOrEqual(1);
  expect((await eventsOf(kept)).map((event) => event.occurredAt)).toEqual([old(SECURITY_EVENT_RETENTION_DAYS - 1)]);
  expect(await eventsOf(cancelled)).toEqual([]);
  // The purge's permission ended with its transaction.
  await expectAppendOnlyRefusal(handle.db.delete(securityEvents).where(eq(securityEvents.sub, kept)));
});
