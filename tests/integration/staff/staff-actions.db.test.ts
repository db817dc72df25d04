import { and, eq, isNull } from "drizzle-orm";
import { decodeJwt } from "jose";
import {
  AdminAddUserToGroupCommand,
  AdminUpdateUserAttributesCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, expect, test } from "vitest";
import { emailChangeTokens, memberDirectory, memberSessions, staffAuditEvents } from "~db/schema";
import { authenticateBearer } from "~/api/bearer-auth.server";
import { DomainError, withDomainErrors } from "~/domain/domain-error.server";
import { requestEmailChange } from "~/domain/account/email-change.server";
import { issuedAtOf } from "~/domain/account/sign-in.server";
import { startSession } from "~/domain/sessions/device-admission.server";
import { describeDevice } from "~/domain/sessions/device-description.server";
import {
  type StaffActionActor,
  changeMemberEmail,
  disableMember,
  enableMember,
  endMemberSessions,
  refreshMember,
  turnOffMemberTwoStep,
} from "~/domain/staff/staff-actions.server";
import { listAuditEvents } from "~/domain/staff/staff-audit-log.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { createMailer } from "~/integrations/mailer.server";
import type { MailboxEntry } from "~/router-context.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { listMailboxEntries, mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { useTestServices } from "../../support/test-services";

// Each staff action against the real parts: the Cognito stand-in through the AWS SDK, the SMTP capture, and PGlite
// (or PostgreSQL via TEST_DATABASE_URL). Tokens are verified exactly as the member API does (authenticateBearer).
const ORIGIN = "http://localhost:3997";
const PASSWORD = "correct-horse-battery";
const app = useTestServices({ label: "staff-actions", origin: ORIGIN });
let sdk: StandInSdk;

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});

afterAll(async () => {
  sdk?.destroy();
});

function actor(requestId = `req-${crypto.randomUUID()}`): StaffActionActor {
  return { sub: crypto.randomUUID(), email: "staff@example.jp", requestId };
}

async function createMember(label: string, locale: "ja" | "en" = "ja") {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await app.services.identity.createConfirmedUser({ email, password: PASSWORD, attributes: { locale } });
  const { sub } = await app.services.identity.getUser(email);
  return { sub, email };
}

/** A sign-in with bearer tokens and, when `registered`, the session row that records it (as the app's sign-in makes). */
async function signIn(member: { sub: string; email: string }, registered: boolean) {
  const tokens = await bearerTokensFor(sdk, member.email, PASSWORD);
  const claims = JSON.parse(Buffer.from(tokens.accessToken.split(".")[1]!, "base64url").toString()) as {
    origin_jti: string;
  };
  if (registered) {
    await app.db.insert(memberSessions).values({
      sub: member.sub,
      email: member.email,
      deviceKey: crypto.randomUUID(),
      deviceName: "Linux",
      browser: "Chrome 120",
      refreshTokenEncrypted: `unused-${crypto.randomUUID()}`,
      originJti: claims.origin_jti,
      activatedAt: new Date(),
    });
  }
  return tokens.accessToken;
}

async function bearerVerdict(accessToken: string): Promise<"accepted" | "refused"> {
  const request = new Request(`${ORIGIN}/api/user-devices`, { headers: { Authorization: `Bearer ${accessToken}` } });
  return authenticateBearer(request, { db: app.db, cognito: app.services.config.cognito }).then(
    () => "accepted",
    () => "refused",
  );
}

async function liveSessionsOf(sub: string) {
  const rows = await app.db.select().from(memberSessions).where(eq(memberSessions.sub, sub));
  return rows.filter((row) => row.revokedAt === null).length;
}

async function mailsTo(address: string): Promise<MailboxEntry[]> {
  return (await listMailboxEntries(mailboxDirectory(app.dataDir))).filter(
    (entry) => entry.kind === "mail" && entry.to.includes(address),
  );
}

test("changing the e-mail sets it verified at Cognito and on the sessions, voids pending links, tells both addresses and records it", async () => {
  const member = await createMember("staff-email", "en");
  await signIn(member, true);
  await requestEmailChange(
    { ...app.services, mailTexts: i18nextOutsideRequests, confirmationLink: emailUpdateLinkFor(ORIGIN) },
    { sub: member.sub, currentEmail: member.email, newEmail: `own-${member.email}`, locale: "en" },
  );
  const newEmail = `NEW-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const staff = actor();

  const result = await changeMemberEmail(app.services, staff, member.sub, newEmail, i18nextOutsideRequests);

  expect(result).toEqual({
    oldEmail: member.email,
    newEmail: newEmail.toLowerCase(),
    voidedLinks: 1,
    notified: { oldAddress: true, newAddress: true },
  });
  const user = await app.services.identity.getUser(member.sub);
  expect({ email: user.email, emailVerified: user.emailVerified }).toEqual({
    email: newEmail.toLowerCase(),
    emailVerified: true,
  });
  const sessions = await app.db.select().from(memberSessions).where(eq(memberSessions.sub, member.sub));
  expect(sessions.map((row) => row.email)).toEqual([newEmail.toLowerCase()]);
  const pending = await app.db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub));
  expect(pending).toEqual([]);
  for (const address of [member.email, newEmail.toLowerCase()]) {
    const [notice] = await mailsTo(address);
    expect(notice?.subject).toBe("Your e-mail address has been changed by our staff");
    expect(notice?.text).toContain(`from ${member.email} to ${newEmail.toLowerCase()}`);
  }
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub });
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    action: "user.email-change",
    actorSub: staff.sub,
    actorEmail: staff.email,
    requestId: staff.requestId,
    before: { email: member.email, emailVerified: true },
    after: { email: newEmail.toLowerCase(), emailVerified: true },
  });
  // The member signs in with the new address.
  await expect(
    app.services.identity.signIn({ email: newEmail.toLowerCase(), password: PASSWORD }),
  ).resolves.toBeTruthy();
});

test("the notices go out in the member's language", async () => {
  const member = await createMember("staff-email-ja", "ja");
  const newEmail = `ja-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await changeMemberEmail(app.services, actor(), member.sub, newEmail, i18nextOutsideRequests);
  const [notice] = await mailsTo(newEmail);
  expect(notice?.subject).toBe("メールアドレスが変更されました（スタッフによる変更）");
});

test("a mail server that is down does not undo the change, and the result says so", async () => {
  const member = await createMember("staff-email-nomail");
  const newEmail = `nomail-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const mailer = withDomainErrors(createMailer({ smtpUrl: "smtp://127.0.0.1:9", mailFrom: "ID <no-reply@localhost>" }));

  const result = await changeMemberEmail(
    { ...app.services, mailer },
    actor(),
    member.sub,
    newEmail,
    i18nextOutsideRequests,
  );

  expect(result.notified).toEqual({ oldAddress: false, newAddress: false });
  expect((await app.services.identity.getUser(member.sub)).email).toBe(newEmail);
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub });
  expect(events[0]?.after).toMatchObject({ email: newEmail, notified: { oldAddress: false, newAddress: false } });
});

test("an e-mail change refuses the member's own address and another member's, and changes nothing", async () => {
  const member = await createMember("staff-email-refused");
  const other = await createMember("staff-email-other");

  const same = await changeMemberEmail(
    app.services,
    actor(),
    member.sub,
    member.email.toUpperCase(),
    i18nextOutsideRequests,
  ).catch((error: unknown) => error);
  const taken = await changeMemberEmail(app.services, actor(), member.sub, other.email, i18nextOutsideRequests).catch(
    (error: unknown) => error,
  );

  expect(same).toBeInstanceOf(DomainError);
  expect((same as DomainError).code).toBe("sameAddress");
  expect(taken).toBeInstanceOf(DomainError);
  expect((taken as DomainError).code).toBe("emailUnavailable");
  expect((await app.services.identity.getUser(member.sub)).email).toBe(member.email);
  expect((await listAuditEvents(app.db, { targetSub: member.sub })).events).toEqual([]);
});

test("the directory refuses an address a member holds there, but not one whose holder Cognito no longer has", async () => {
  const member = await createMember("staff-email-directory");
  const held = `held-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const freed = `freed-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const now = new Date();
  const row = { username: "x", cognitoStatus: "CONFIRMED", signedUpAt: now, cognitoUpdatedAt: now };
  // Rows as the directory holds them: one of a member Cognito has, one of a cancelled member it deleted.
  await app.db.insert(memberDirectory).values([
    { ...row, sub: crypto.randomUUID(), email: held.toUpperCase() },
    { ...row, sub: crypto.randomUUID(), email: freed, missingFromCognitoAt: now },
  ]);

  const refused = await changeMemberEmail(app.services, actor(), member.sub, held, i18nextOutsideRequests).catch(
    (error: unknown) => error,
  );
  expect((refused as DomainError).code).toBe("emailUnavailable");
  await expect(
    changeMemberEmail(app.services, actor(), member.sub, freed, i18nextOutsideRequests),
  ).resolves.toMatchObject({
    newEmail: freed,
  });
});

test("every action refuses a sub that names no member, and a malformed one, recording nothing", async () => {
  const unknown = crypto.randomUUID();
  const attempts = [
    () => changeMemberEmail(app.services, actor(), unknown, "someone@example.jp", i18nextOutsideRequests),
    () => endMemberSessions(app.services, actor(), unknown),
    () => disableMember(app.services, actor(), unknown),
    () => enableMember(app.services, actor(), unknown),
    () => disableMember(app.services, actor(), "not-a-sub"),
  ];
  for (const attempt of attempts) {
    const error = await attempt().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("memberNotFound");
  }
  expect((await listAuditEvents(app.db, { targetSub: unknown })).events).toEqual([]);
});

test("every change to a staff member's account is refused and recorded as refused, even before the directory knows they are staff; the refresh is not", async () => {
  const colleague = await createMember("staff-colleague");
  // Made staff in the AWS console a moment ago: the directory has no row for them yet, Cognito has the group.
  await sdk.cognito.send(
    new AdminAddUserToGroupCommand({ UserPoolId: sdk.userPoolId, Username: colleague.sub, GroupName: "admin" }),
  );
  const token = await signIn(colleague, true);
  const staff = actor();
  const attempts = {
    "user.email-change": () =>
      changeMemberEmail(app.services, staff, colleague.sub, `taken-over-${colleague.email}`, i18nextOutsideRequests),
    "user.sessions-end": () => endMemberSessions(app.services, staff, colleague.sub),
    "user.disable": () => disableMember(app.services, staff, colleague.sub),
    "user.enable": () => enableMember(app.services, staff, colleague.sub),
    "user.two-step-off": () => turnOffMemberTwoStep(app.services, staff, colleague.sub),
  };
  for (const [action, attempt] of Object.entries(attempts)) {
    const error = await attempt().catch((failure: unknown) => failure);
    expect(error, action).toBeInstanceOf(DomainError);
    expect((error as DomainError).code, action).toBe("targetIsStaff");
  }

  const user = await app.services.identity.getUser(colleague.sub);
  expect([user.email, user.enabled]).toEqual([colleague.email, true]);
  expect(await liveSessionsOf(colleague.sub)).toBe(1);
  expect(await bearerVerdict(token)).toBe("accepted");
  const { events } = await listAuditEvents(app.db, { targetSub: colleague.sub });
  expect(events.map((event) => [event.action, event.after]).reverse()).toEqual(
    Object.keys(attempts).map((action) => ["user.action-refused", { action }]),
  );
  expect(events.every((event) => event.requestId === staff.requestId)).toBe(true);

  // The refresh changes nothing of the account, and brings the group into the directory (which the page reads).
  await refreshMember(app.services, staff, colleague.sub);
  const [row] = await app.db.select().from(memberDirectory).where(eq(memberDirectory.sub, colleague.sub));
  expect(row?.groups).toEqual(["admin"]);
});

test("ending all sessions signs every browser out, refuses the member's tokens and records how many ended", async () => {
  const member = await createMember("staff-sign-out");
  const first = await signIn(member, true);
  const second = await signIn(member, true);
  expect(await bearerVerdict(first)).toBe("accepted");
  const staff = actor();

  const result = await endMemberSessions(app.services, staff, member.sub);

  expect(result).toEqual({ endedSessions: 2, globalSignOut: true });
  expect(await liveSessionsOf(member.sub)).toBe(0);
  expect([await bearerVerdict(first), await bearerVerdict(second)]).toEqual(["refused", "refused"]);
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub, action: "user.sessions-end" });
  expect(events[0]).toMatchObject({
    requestId: staff.requestId,
    before: { liveSessions: 2 },
    after: { liveSessions: 0, endedSessions: 2, globalSignOut: true },
  });
});

test("disabling refuses the member's sign-in and API tokens at once, even one no session records, and ends the sessions", async () => {
  const member = await createMember("staff-disable");
  const registered = await signIn(member, true);
  const unregistered = await signIn(member, false);
  expect([await bearerVerdict(registered), await bearerVerdict(unregistered)]).toEqual(["accepted", "accepted"]);
  const staff = actor();

  const result = await disableMember(app.services, staff, member.sub);

  expect(result.endedSessions).toBe(1);
  expect(await liveSessionsOf(member.sub)).toBe(0);
  expect([await bearerVerdict(registered), await bearerVerdict(unregistered)]).toEqual(["refused", "refused"]);
  expect((await app.services.identity.getUser(member.sub)).enabled).toBe(false);
  await expect(app.services.identity.signIn({ email: member.email, password: PASSWORD })).rejects.toBeInstanceOf(
    DomainError,
  );
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub, action: "user.disable" });
  expect(events[0]).toMatchObject({
    requestId: staff.requestId,
    before: { enabled: true, liveSessions: 1 },
    after: { enabled: false, liveSessions: 0, endedSessions: 1 },
  });
});

/**
 * The race of a sign-in with a staff action: Cognito issued the sign-in's tokens before the action, and the app
 * records the session after it (the sign-in's request was between its Cognito call and its database write). The
 * session must not outlive the action: its tokens were issued before the member was signed out everywhere.
 */
for (const [name, act] of [
  ["disabling", disableMember],
  ["ending all sessions", endMemberSessions],
] as const) {
  test(`a sign-in that races ${name} leaves no live session`, async () => {
    const member = await createMember(`race-${name.split(" ")[0]}`);
    // The sign-in's Cognito call (AdminInitiateAuth) returned its tokens before the staff action.
    const tokens = await app.services.identity.signIn({ email: member.email, password: PASSWORD });
    await act(app.services, actor(), member.sub);
    const recording = startSession(app.services, {
      sub: member.sub,
      email: member.email,
      deviceKey: crypto.randomUUID(),
      device: describeDevice("Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36"),
      refreshToken: tokens.refreshToken!,
      originJti: String(decodeJwt(tokens.accessToken).origin_jti),
      issuedAt: issuedAtOf(tokens.accessToken),
      overLimit: "hold",
      clientIp: "203.0.113.9",
      passwordTyped: true,
    });
    await expect(recording).rejects.toMatchObject({ code: "invalidCredentials" });
    const live = await app.db
      .select()
      .from(memberSessions)
      .where(and(eq(memberSessions.sub, member.sub), isNull(memberSessions.revokedAt)));
    expect(live).toEqual([]);
  });
}

test("a member the directory shows disabled (say, by the reconcile after a disable in the AWS console) has every token refused", async () => {
  const member = await createMember("directory-disabled");
  await refreshMember(app.services, actor(), member.sub);
  const unregistered = await signIn(member, false);
  expect(await bearerVerdict(unregistered)).toBe("accepted");

  await app.db.update(memberDirectory).set({ enabled: false }).where(eq(memberDirectory.sub, member.sub));

  expect(await bearerVerdict(unregistered)).toBe("refused");
});

test("enabling lets a disabled member sign in again, and is recorded", async () => {
  const member = await createMember("staff-enable");
  await disableMember(app.services, actor(), member.sub);
  const staff = actor();

  expect(await enableMember(app.services, staff, member.sub)).toEqual({ enabled: true });

  expect((await app.services.identity.getUser(member.sub)).enabled).toBe(true);
  await expect(app.services.identity.signIn({ email: member.email, password: PASSWORD })).resolves.toBeTruthy();
  // The disable refused every token of its own second (recordSignOutEverywhere): a sign-in from the next one works.
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 10));
  const fresh = await signIn(member, false);
  expect(await bearerVerdict(fresh)).toBe("accepted");
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub });
  expect(events.map((event) => event.action)).toEqual(["user.enable", "user.disable"]);
  expect(events[0]).toMatchObject({ requestId: staff.requestId, before: { enabled: false }, after: { enabled: true } });
});

test("refreshing reads the member from Cognito into the directory, says what changed and records it", async () => {
  const member = await createMember("staff-refresh");
  const first = await refreshMember(app.services, actor(), member.sub);
  expect(first.missing).toBe(false);
  // Changed at Cognito behind the app's back (another tool, the console): the directory does not know yet.
  await sdk.cognito.send(
    new AdminUpdateUserAttributesCommand({
      UserPoolId: sdk.userPoolId,
      Username: member.sub,
      UserAttributes: [{ Name: "given_name", Value: "Refreshed" }],
    }),
  );
  const staff = actor();

  const result = await refreshMember(app.services, staff, member.sub);

  expect(result).toEqual({ missing: false, changes: { givenName: { before: null, after: "Refreshed" } } });
  const [row] = await app.db.select().from(memberDirectory).where(eq(memberDirectory.sub, member.sub));
  expect(row?.givenName).toBe("Refreshed");
  const { events } = await listAuditEvents(app.db, { targetSub: member.sub, action: "user.refresh" });
  expect(events[0]).toMatchObject({
    requestId: staff.requestId,
    before: { givenName: null },
    after: { givenName: "Refreshed", missing: false },
  });
});

test("refreshing a sub that neither the directory nor Cognito knows is refused and recorded nowhere", async () => {
  const unknown = crypto.randomUUID();
  const error = await refreshMember(app.services, actor(), unknown).catch((failure: unknown) => failure);
  expect((error as DomainError).code).toBe("memberNotFound");
  const rows = await app.db.select().from(memberDirectory).where(eq(memberDirectory.sub, unknown));
  expect(rows).toEqual([]);
});

test("the audit table refuses UPDATE and DELETE", async () => {
  const member = await createMember("staff-audit");
  await enableMember(app.services, actor(), member.sub);
  const { db } = app;
  await expect(
    db
      .update(staffAuditEvents)
      .set({ actorEmail: "someone-else@example.jp" })
      .where(eq(staffAuditEvents.targetSub, member.sub)),
  ).rejects.toThrow();
  await expect(db.delete(staffAuditEvents).where(eq(staffAuditEvents.targetSub, member.sub))).rejects.toThrow();
  expect((await listAuditEvents(db, { targetSub: member.sub })).events).toHaveLength(1);
});

test("the audit log filters by actor, action and day, and pages by keyset without gaps or repeats", async () => {
  const member = await createMember("staff-audit-pages");
  const staff = { ...actor(), email: `Pager-${crypto.randomUUID().slice(0, 8)}@example.jp` };
  for (let round = 0; round < 5; round++) await enableMember(app.services, staff, member.sub);
  await endMemberSessions(app.services, staff, member.sub);
  const { db } = app;

  const byEmail = await listAuditEvents(db, { actor: staff.email.toLowerCase() });
  const bySub = await listAuditEvents(db, { actor: staff.sub, action: "user.enable" });
  expect(byEmail.events).toHaveLength(6);
  expect(bySub.events).toHaveLength(5);

  const seen: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(db, { actor: staff.sub, limit: "2", cursor: cursor ?? "" });
    seen.push(...page.events.map((event) => event.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(seen).toEqual(byEmail.events.map((event) => event.id));
  expect(new Set(seen).size).toBe(6);

  // The filter's days are Japanese days (UTC+9, no daylight saving), taken from the events themselves: a day read
  // from the clock now could be the next one if Japan's midnight fell during the test.
  const tokyoDayOf = (at: Date) => new Date(at.getTime() + 9 * 60 * 60 * 1000).toISOString().slice(0, 10);
  const [newest, oldest] = [byEmail.events.at(0)!, byEmail.events.at(-1)!];
  const days = { from: tokyoDayOf(oldest.occurredAt), to: tokyoDayOf(newest.occurredAt) };
  expect((await listAuditEvents(db, { actor: staff.sub, ...days })).events).toHaveLength(6);
  expect((await listAuditEvents(db, { actor: staff.sub, to: "2000-01-01" })).events).toEqual([]);
});
