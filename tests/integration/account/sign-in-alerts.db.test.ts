import net from "node:net";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mailOutbox, memberProfiles, memberSessions, securityEvents, signInAlertTokens } from "~db/schema";
import { parseConfig } from "~/config.server";
import { changePassword } from "~/domain/account/password-change.server";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { cancelMembership } from "~/domain/account/withdrawal.server";
import {
  SIGN_IN_ALERT_LINK_TTL_MS,
  endSignInByAlertLink,
  hashSignInAlertToken,
  isSignInAlertTokenUsable,
} from "~/domain/account/sign-in-alert-links.server";
import { signIn } from "~/domain/account/sign-in.server";
import { withDomainErrors } from "~/domain/domain-error.server";
import { hashDeviceKey, isKnownBrowser, recordSignUp } from "~/domain/security/security-record.server";
import { listActiveDevices } from "~/domain/sessions/device-list.server";
import { registerDevice } from "~/domain/sessions/device-registration.server";
import {
  MAIL_FIRST_BACKOFF_MS,
  MAIL_MAX_ATTEMPTS,
  queueMail,
  ringMailOutbox,
  formatJapanTime,
  sendDueMail,
  startMailOutboxWorker,
} from "~/domain/mail/mail-outbox.server";
import type { Locale } from "~/i18n/locales";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import { securityMailLinksFor } from "~/routing/security-mail-links";
import type { StandIns } from "~/server/start-server";
import type { Clock } from "~/services.server";
import { cognitoConfigOf } from "../../support/stand-in-config";
import { type MailboxEntry, listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { startEmbeddedStack } from "../../support/stand-ins/embedded-stack";
import { useTestDatabase } from "../../support/test-database";
import { makeTempDir } from "../../support/temp-dir";

// The real parts: the Cognito stand-in through the AWS SDK, the SMTP capture (behind a proxy the tests can hold or
// cut), and PGlite (or PostgreSQL in CI). A database of its own: the tests count the outbox's rows and sends.
const database = useTestDatabase("sign-in-alerts", { ownDatabase: true });
const temp = makeTempDir("sign-in-alerts");
const ORIGIN = "http://localhost:3998";
const PASSWORD = "correct-horse-battery";
const FIREFOX_ON_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
let stack: StandIns;
let smtp: SmtpProxy;

/** The time every service sees; a test moves it instead of waiting. */
let now = new Date("2026-11-26T05:00:00Z");
const clock: Clock = { now: () => now };

/**
 * A TCP proxy in front of the SMTP capture: "pass" forwards, "hold" accepts and never answers (a hung mail server),
 * "refuse" closes at once. `events` records connections in order, for the order-of-events checks.
 */
interface SmtpProxy {
  url: string;
  mode: "pass" | "hold" | "refuse";
  events: string[];
  /** Cuts the held connections: their sends fail. */
  dropHeld(): void;
  stop(): Promise<void>;
}

async function startSmtpProxy(target: string): Promise<SmtpProxy> {
  const { hostname, port } = new URL(target);
  const held = new Set<net.Socket>();
  const proxy: SmtpProxy = {
    url: "",
    mode: "pass",
    events: [],
    dropHeld() {
      for (const socket of held) socket.destroy();
      held.clear();
      proxy.events.push("smtp dropped");
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = net.createServer((client) => {
    proxy.events.push(`smtp ${proxy.mode}`);
    if (proxy.mode === "refuse") return client.destroy();
    if (proxy.mode === "hold") {
      held.add(client);
      client.on("error", () => {});
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;
  proxy.url = `smtp://127.0.0.1:${address.port}`;
  return proxy;
}

beforeAll(async () => {
  stack = await startEmbeddedStack({ dataDir: temp.dir, adminGroup: "admin" });
  smtp = await startSmtpProxy(stack.env.SMTP_URL!);
});

afterAll(async () => {
  await smtp?.stop();
  await stack?.stop();
  temp.remove();
});

function services() {
  return {
    db: database().db,
    identity: withDomainErrors(createIdentityProvider(cognitoConfigOf(stack))),
    config: { ...parseConfig({}), deviceLimit: 10, sessionSecrets: ["s".repeat(32)], origin: ORIGIN },
    clock,
    mailer: withDomainErrors(createMailer({ smtpUrl: smtp.url, mailFrom: "ID <no-reply@localhost>" })),
    mailTexts: i18nextOutsideRequests,
    links: securityMailLinksFor(ORIGIN),
  };
}

async function createMember(label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await services().identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale: "ja" } });
  const { sub } = await services().identity.getUser(email);
  return { sub, email };
}

/** A sign-in from one browser (by its device key), as the sign-in page makes it. */
async function signInFrom(
  member: { email: string },
  deviceKey: string,
  options: { userAgent?: string; clientIp?: string; locale?: Locale } = {},
) {
  const result = await signIn(services(), {
    email: member.email,
    password: PASSWORD,
    deviceKey,
    userAgent: options.userAgent ?? null,
    clientIp: options.clientIp ?? "192.0.2.10",
    locale: options.locale ?? "ja",
  });
  if (result.kind !== "active") throw new Error(`expected an active sign-in, got ${result.kind}`);
  return result;
}

async function securityEventCount(sub: string) {
  return (await database().db.select().from(securityEvents).where(eq(securityEvents.sub, sub))).length;
}

async function outboxRowsTo(email: string) {
  return database().db.select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
}

async function mailsTo(email: string): Promise<MailboxEntry[]> {
  return (await listMailboxEntries(mailboxDirectory(temp.dir))).filter(
    (entry) => entry.kind === "mail" && entry.to.includes(email),
  );
}

function alertTokenIn(mail: MailboxEntry | undefined): string {
  const match = /\/sign-in-alert\/([A-Za-z0-9_-]+)\//.exec(mail?.text ?? "");
  if (!match) throw new Error("no sign-in alert link in the mail");
  return match[1]!;
}

/** Signs a member in from two browsers and sends the alert the second one causes; its link's token. */
async function memberWithAlert(label: string) {
  const member = await createMember(label);
  const first = await signInFrom(member, `${label}-first`);
  const second = await signInFrom(member, `${label}-second`, { userAgent: FIREFOX_ON_WINDOWS });
  await sendDueMail(services());
  const [mail] = await mailsTo(member.email);
  return { member, first, second, token: alertTokenIn(mail) };
}

async function isRevoked(sessionId: string) {
  const [row] = await database().db.select().from(memberSessions).where(eq(memberSessions.id, sessionId));
  return { revoked: row?.revokedAt !== null, refreshTokenRevoked: row?.refreshTokenRevokedAt !== null };
}

test("a second browser's sign-in queues and sends exactly one alert; the first sign-in and a known browser none", async () => {
  const member = await createMember("second-browser");
  await signInFrom(member, "first-browser");
  // A known browser's sign-in writes its event alone beside the session: no outbox row.
  await signInFrom(member, "first-browser");
  expect(await outboxRowsTo(member.email)).toEqual([]);
  expect(await securityEventCount(member.sub)).toBe(2);

  now = new Date("2026-11-26T05:41:00Z");
  const second = await signInFrom(member, "second-browser", { userAgent: FIREFOX_ON_WINDOWS, clientIp: "203.0.113.7" });
  expect(await securityEventCount(member.sub)).toBe(3);
  const rows = await outboxRowsTo(member.email);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ kind: "signInAlert", locale: "ja", sentAt: null });
  expect(rows[0]!.details).toMatchObject({
    sessionId: second.sessionId,
    clientIp: "203.0.113.7",
    browser: "Firefox 128",
  });

  expect(await sendDueMail(services())).toBeGreaterThanOrEqual(1);
  const mails = await mailsTo(member.email);
  expect(mails).toHaveLength(1);
  expect(mails[0]!.subject).toBe("新しいブラウザからログインがありました");
  // When in Japan time, device, browser, IP and the link in the member's language.
  expect(mails[0]!.text).toContain("2026/11/26 14:41");
  expect(mails[0]!.text).toContain("Windows");
  expect(mails[0]!.text).toContain("Firefox");
  expect(mails[0]!.text).toContain("203.0.113.7");
  expect(mails[0]!.text).toContain(`${ORIGIN}/sign-in-alert/`);
  expect((await outboxRowsTo(member.email))[0]!.sentAt).not.toBeNull();

  // Both browsers are known now: signing in again from either mails nobody.
  await signInFrom(member, "second-browser", { userAgent: FIREFOX_ON_WINDOWS });
  await signInFrom(member, "first-browser");
  expect(await outboxRowsTo(member.email)).toHaveLength(1);
  expect(await sendDueMail(services())).toBe(0);
  expect(await mailsTo(member.email)).toHaveLength(1);
});

test("the browser that did the sign-up and the first sign-in after sign-up get no alert; a third browser does", async () => {
  const member = await createMember("after-sign-up");
  await recordSignUp(database().db, {
    sub: member.sub,
    email: member.email,
    deviceKey: "sign-up-browser",
    deviceName: "Windows 10",
    browser: "Firefox 128",
    ipAddress: "192.0.2.10",
    occurredAt: clock.now(),
  });
  // The first sign-in is from another browser (the phone): still the member's first, no alert.
  await signInFrom(member, "phone");
  // Then the browser that signed up: known since the sign-up.
  await signInFrom(member, "sign-up-browser");
  expect(await outboxRowsTo(member.email)).toEqual([]);
  await signInFrom(member, "third-browser");
  expect(await outboxRowsTo(member.email)).toHaveLength(1);
});

test("a device key a sibling registered through the API is no known browser: a page sign-in from a browser with that key is alerted", async () => {
  const member = await createMember("api-key");
  await signInFrom(member, "members-own-browser");
  // The sibling's registration, with a refresh token straight from Cognito (a public client's sign-in).
  const answer = await services().identity.beginSignIn({ email: member.email, password: PASSWORD });
  if (answer.kind !== "tokens" || !answer.tokens.refreshToken) throw new Error(`the sign-in answered ${answer.kind}`);
  const registered = await registerDevice(services(), {
    sub: member.sub,
    deviceKey: "planted-key",
    refreshToken: answer.tokens.refreshToken,
    userAgent: FIREFOX_ON_WINDOWS,
    clientIp: "203.0.113.9",
  });
  expect(registered).toEqual({ kind: "registered", created: true });
  // Listed for the sibling under the key it gave.
  expect((await listActiveDevices(database().db, member.sub)).map((device) => device.deviceKey)).toContain(
    "planted-key",
  );

  expect(await isKnownBrowser(database().db, member.sub, hashDeviceKey("members-own-browser"))).toBe(true);
  expect(await isKnownBrowser(database().db, member.sub, hashDeviceKey("planted-key"))).toBe(false);
  expect(await outboxRowsTo(member.email)).toEqual([]);

  const page = await signInFrom(member, "planted-key", { userAgent: FIREFOX_ON_WINDOWS });
  const rows = await outboxRowsTo(member.email);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.details).toMatchObject({ sessionId: page.sessionId });
  // Now the page sign-in made it known; the sibling's registration still has its own entry.
  expect(await isKnownBrowser(database().db, member.sub, hashDeviceKey("planted-key"))).toBe(true);
  expect(await listActiveDevices(database().db, member.sub)).toHaveLength(3);
});

test("the member's preferred language, else the sign-in page's", async () => {
  const english = await createMember("prefers-en");
  await database().db.insert(memberProfiles).values({ sub: english.sub, preferredLanguage: "en" });
  await signInFrom(english, "first");
  await signInFrom(english, "second", { locale: "ja" });
  const noProfile = await createMember("no-profile");
  await signInFrom(noProfile, "first");
  await signInFrom(noProfile, "second", { locale: "en" });
  await sendDueMail(services());
  for (const member of [english, noProfile]) {
    const [mail] = await mailsTo(member.email);
    expect(mail?.subject).toBe("New login from a browser");
    expect(mail?.text).toContain(`${ORIGIN}/en/sign-in-alert/`);
  }
});

test("the link ends exactly that session once; another member's link and a wrong one change nothing", async () => {
  const alice = await memberWithAlert("alice");
  const bob = await memberWithAlert("bob");

  // Only the SHA-256 of the token is stored, and the outbox never held it.
  const [stored] = await database()
    .db.select()
    .from(signInAlertTokens)
    .where(eq(signInAlertTokens.sessionId, alice.second.sessionId));
  expect(stored?.tokenHash).toBe(hashSignInAlertToken(alice.token));
  expect(stored?.sub).toBe(alice.member.sub);
  expect(JSON.stringify(await outboxRowsTo(alice.member.email))).not.toContain(alice.token);

  expect(await isSignInAlertTokenUsable(database().db, alice.token, clock.now())).toBe(true);
  expect(await endSignInByAlertLink(services(), "not-a-token", "192.0.2.1")).toEqual({ kind: "expired" });
  expect(await endSignInByAlertLink(services(), alice.token, "192.0.2.1")).toEqual({ kind: "ended" });

  // The second browser's session is over and its refresh token revoked at Cognito; the first stays, and so do Bob's.
  expect(await isRevoked(alice.second.sessionId)).toEqual({ revoked: true, refreshTokenRevoked: true });
  expect((await isRevoked(alice.first.sessionId)).revoked).toBe(false);
  expect((await isRevoked(bob.first.sessionId)).revoked).toBe(false);
  expect((await isRevoked(bob.second.sessionId)).revoked).toBe(false);
  // The ending is in Alice's security record as a sign-in she reported as not hers.
  const reported = await database()
    .db.select()
    .from(securityEvents)
    .where(and(eq(securityEvents.sub, alice.member.sub), eq(securityEvents.kind, "session-reported")));
  expect(reported).toEqual([expect.objectContaining({ sessionId: alice.second.sessionId, ipAddress: "192.0.2.1" })]);

  // Single use.
  expect(await isSignInAlertTokenUsable(database().db, alice.token, clock.now())).toBe(false);
  expect(await endSignInByAlertLink(services(), alice.token, "192.0.2.1")).toEqual({ kind: "expired" });
  // Bob's own link still works, on his session alone.
  expect(await endSignInByAlertLink(services(), bob.token, "192.0.2.1")).toEqual({ kind: "ended" });
  expect((await isRevoked(bob.second.sessionId)).revoked).toBe(true);
  expect((await isRevoked(bob.first.sessionId)).revoked).toBe(false);
  expect((await isRevoked(alice.first.sessionId)).revoked).toBe(false);
});

test("the link expires after seven days", async () => {
  const carol = await memberWithAlert("carol");
  const sentAt = clock.now();
  now = new Date(sentAt.getTime() + SIGN_IN_ALERT_LINK_TTL_MS - 1000);
  expect(await isSignInAlertTokenUsable(database().db, carol.token, clock.now())).toBe(true);
  now = new Date(sentAt.getTime() + SIGN_IN_ALERT_LINK_TTL_MS + 1000);
  expect(await isSignInAlertTokenUsable(database().db, carol.token, clock.now())).toBe(false);
  expect(await endSignInByAlertLink(services(), carol.token, "192.0.2.1")).toEqual({ kind: "expired" });
  expect((await isRevoked(carol.second.sessionId)).revoked).toBe(false);
});

test("a mail server that hangs and then fails does not hold up the sign-in; the mail is retried and delivered", async () => {
  const member = await createMember("smtp-down");
  await signInFrom(member, "first");
  // Nothing else due: what the worker sends below is this test's mail.
  await sendDueMail(services());
  const worker = startMailOutboxWorker(services(), { pollIntervalMs: 60 * 60 * 1000 });
  try {
    smtp.mode = "hold";
    smtp.events.length = 0;
    await signInFrom(member, "second");
    smtp.events.push("signed in");
    // The worker was woken by the sign-in and is talking to the mail server, which has not answered: the sign-in
    // finished all the same.
    await expect.poll(() => smtp.events.includes("smtp hold")).toBe(true);
    expect(await mailsTo(member.email)).toEqual([]);
    smtp.dropHeld();
    await expect.poll(async () => (await outboxRowsTo(member.email))[0]?.lastError ?? null).not.toBeNull();
    const [failed] = await outboxRowsTo(member.email);
    expect(failed).toMatchObject({ attempts: 1, sentAt: null, leasedUntil: null });
    expect(failed!.nextAttemptAt.getTime()).toBe(clock.now().getTime() + MAIL_FIRST_BACKOFF_MS);
    expect(smtp.events.indexOf("signed in")).toBeLessThan(smtp.events.indexOf("smtp dropped"));

    // Not yet due: a ring sends nothing.
    smtp.mode = "pass";
    expect(await sendDueMail(services())).toBe(0);
    now = new Date(now.getTime() + MAIL_FIRST_BACKOFF_MS);
    ringMailOutbox();
    await expect.poll(async () => (await mailsTo(member.email)).length).toBe(1);
    await expect.poll(async () => (await outboxRowsTo(member.email))[0]?.sentAt ?? null).not.toBeNull();
    expect((await outboxRowsTo(member.email))[0]).toMatchObject({ attempts: 2, lastError: null });
  } finally {
    smtp.mode = "pass";
    await worker.stop();
  }
});

test("a mail that keeps failing is given up after the last attempt", async () => {
  const email = `given-up-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await queueMail(database().db, {
    kind: "passwordChanged",
    details: { changedAt: now.toISOString() },
    recipient: email,
    sub: crypto.randomUUID(),
    requestLocale: "ja",
    now,
  });
  await database()
    .db.update(mailOutbox)
    .set({ attempts: MAIL_MAX_ATTEMPTS - 1 })
    .where(eq(mailOutbox.recipient, email));
  smtp.mode = "refuse";
  try {
    expect(await sendDueMail(services())).toBe(0);
  } finally {
    smtp.mode = "pass";
  }
  const [row] = await outboxRowsTo(email);
  expect(row).toMatchObject({ attempts: MAIL_MAX_ATTEMPTS, sentAt: null });
  expect(row!.abandonedAt).not.toBeNull();
  now = new Date(now.getTime() + 365 * 24 * 60 * 60 * 1000);
  // Other tests' mail may fall due a year on; this address's abandoned one must not be among what goes out.
  await sendDueMail(services());
  expect(await mailsTo(email)).toEqual([]);
});

test("two workers never send one mail twice", async () => {
  const recipients = Array.from({ length: 12 }, (_, i) => `twice-${i}-${crypto.randomUUID().slice(0, 8)}@example.jp`);
  for (const recipient of recipients) {
    await queueMail(database().db, {
      kind: "passwordChanged",
      details: { changedAt: now.toISOString() },
      recipient,
      sub: crypto.randomUUID(),
      requestLocale: "en",
      now,
    });
  }
  const [a, b] = await Promise.all([sendDueMail(services()), sendDueMail(services())]);
  expect(a + b).toBe(recipients.length);
  for (const recipient of recipients) expect(await mailsTo(recipient)).toHaveLength(1);
  const rows = await database().db.select().from(mailOutbox).where(inArray(mailOutbox.recipient, recipients));
  expect(rows.every((row) => row.attempts === 1 && row.sentAt !== null)).toBe(true);
});

test("a password change and a password reset each mail the account", async () => {
  const member = await createMember("password-mails");
  const session = await signInFrom(member, "browser");
  await changePassword(services(), {
    sub: member.sub,
    email: member.email,
    sessionId: session.sessionId,
    currentPassword: PASSWORD,
    newPassword: "violet-tundra-spoon-83",
    familyName: null,
    givenName: null,
    clientIp: "192.0.2.10",
    locale: "en",
  });
  await sendDueMail(services());
  expect((await mailsTo(member.email)).map((mail) => mail.subject)).toEqual(["Your password was changed"]);

  await requestPasswordReset(services(), member.email, "ja");
  const code = (await listMailboxEntries(mailboxDirectory(temp.dir))).find(
    (entry) => entry.kind === "code" && entry.to.includes(member.email),
  )?.code;
  await confirmPasswordReset(services(), {
    email: member.email,
    code: code!,
    password: "maple-orbit-quartz-27",
    clientIp: "192.0.2.10",
    locale: "ja",
  });
  await sendDueMail(services());
  const mails = await mailsTo(member.email);
  expect(mails.map((mail) => mail.subject)).toEqual(["パスワードが再設定されました", "Your password was changed"]);
  expect(mails[0]!.text).toContain(`${ORIGIN}/auth/forgot-password/`);
});

test("a cancellation is confirmed by one mail, in the member's language (with no profile yet, the page's)", async () => {
  const member = await createMember("cancelled");
  const cancellation = { ...member, password: PASSWORD, reason: "other" as const, detail: "moving", locale: "en" };
  expect(await cancelMembership(services(), cancellation)).toMatchObject({ kind: "cancelled" });
  await sendDueMail(services());
  const [mail, ...others] = await mailsTo(member.email);
  expect(others).toEqual([]);
  expect(mail!.subject).toBe("Your membership has been cancelled");
  expect(mail!.text).toContain("kept as backup for 13 months");
  expect(mail!.text).toContain(formatJapanTime(now.toISOString()));
});
