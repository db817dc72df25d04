import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { accountEvents, eventDeliveries, memberProfiles, memberSessions } from "~db/schema";
import { importLegacyRows } from "~/domain/account/legacy-accounts.server";
import { signIn } from "~/domain/account/sign-in.server";
import { cancelMembership, purgeCancelledProfiles } from "~/domain/account/withdrawal.server";
import { validateImport } from "~/domain/csv-import/import-dry-run.server";
import { getImportJobProgress, startImportJob } from "~/domain/csv-import/import-jobs.server";
import { startImportWorker } from "~/domain/csv-import/import-worker.server";
import {
  ACCOUNT_EVENT_RETENTION_DAYS,
  purgeExpiredAccountEvents,
  recordAccountEvent,
} from "~/domain/events/account-events.server";
import { activatePendingSession, deactivateDeviceForPendingSignIn } from "~/domain/sessions/device-admission.server";
import { describeDevice } from "~/domain/sessions/device-description.server";
import { registerDevice } from "~/domain/sessions/device-registration.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import {
  type StaffActionActor,
  changeMemberEmail,
  disableMember,
  enableMember,
  endMemberSessions,
  turnOffMemberTwoStep,
} from "~/domain/staff/staff-actions.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { accountEventLog } from "../../support/account-event-log";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { importCsv } from "../../support/csv-import-files";
import { MEMBER_PASSWORD, memberWithTwoStepIn, signInMember, signedInMember } from "../../support/signed-in-members";
import { useTestServices } from "../../support/test-services";

// Every way a member session begins and ends, staff's actions, cancellation and the purge, each through its domain
// verb on the real parts: one event per session that became active or ended, with its sid and reason, numbered in
// order per member; a pending sign-in that never became a session is never announced.
const ORIGIN = "http://localhost:3982";
const app = useTestServices({ label: "recording-sessions", origin: ORIGIN });
const { lastSequence, newEvents, sidOfSession } = accountEventLog(() => app.db);
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";
const browser = { userAgent: FIREFOX, clientIp: "192.0.2.40", locale: "ja" as const };
const firefox = describeDevice(FIREFOX);
const actor = (): StaffActionActor => ({ sub: crypto.randomUUID(), email: "staff@example.jp", requestId: "req" });
let sdk: StandInSdk;

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});

afterAll(() => {
  sdk?.destroy();
});

const revoked = (sid: string, reason: string) => ({ type: "session.revoked", data: { sid, reason } });

test("a sign-in announces its session by its origin; a sign-out, a deactivation and 'this wasn't me' end it", async () => {
  const member = await signedInMember(app.services, "sessions", browser);
  const { sub, email } = member;
  const { clientIp } = browser;
  // The first sign-in's event: the sid is the origin_jti of the sign-in's tokens.
  expect(await newEvents(sub, 0)).toEqual([
    {
      type: "session.created",
      data: { sid: await sidOfSession(member.sessionId), device: firefox.deviceName, browser: firefox.browser },
    },
  ]);
  const [second, third] = [
    await signInMember(app.services, email, browser),
    await signInMember(app.services, email, browser),
  ];
  const after = await lastSequence(sub);
  await endSessions(app.services, { sessionId: second.sessionId }, { record: { kind: "sign-out", clientIp } });
  // Ending an ended session again announces nothing more.
  await endSessions(app.services, { sessionId: second.sessionId }, { record: { kind: "sign-out", clientIp } });
  await endSessions(
    app.services,
    { sub, device: { sessionId: third.sessionId }, exceptSessionId: member.sessionId },
    { record: { kind: "device-deactivated", clientIp } },
  );
  const fourth = await signInMember(app.services, email, browser);
  const afterFourth = await lastSequence(sub);
  await endSessions(
    app.services,
    { sub, device: { sessionId: fourth.sessionId }, exceptSessionId: member.sessionId },
    { record: { kind: "session-reported", clientIp } },
  );
  expect(await newEvents(sub, after)).toEqual([
    revoked(await sidOfSession(second.sessionId), "signed-out"),
    revoked(await sidOfSession(third.sessionId), "device-deactivated"),
    {
      type: "session.created",
      data: { sid: await sidOfSession(fourth.sessionId), device: firefox.deviceName, browser: firefox.browser },
    },
    revoked(await sidOfSession(fourth.sessionId), "reported-not-me"),
  ]);
  expect(afterFourth).toBe(after + 3);
});

test("a sibling's device registration begins a session; its deactivation by key and 'sign out all others' end it", async () => {
  const member = await signedInMember(app.services, "registration", browser);
  const { sub, email } = member;
  const after = await lastSequence(sub);
  const tokens = await bearerTokensFor(sdk, email, MEMBER_PASSWORD);
  const deviceKey = crypto.randomUUID();
  const registration = {
    sub,
    deviceKey,
    refreshToken: tokens.refreshToken,
    userAgent: FIREFOX,
    clientIp: "192.0.2.41",
  };
  expect(await registerDevice(app.services, registration)).toEqual({ kind: "registered", created: true });
  // The same sign-in registered again (the API retried) is the same session.
  expect(await registerDevice(app.services, registration)).toEqual({ kind: "registered", created: false });
  const origin = JSON.parse(Buffer.from(tokens.accessToken.split(".")[1]!, "base64url").toString()) as {
    origin_jti: string;
  };
  await endSessions(
    app.services,
    { sub, device: { deviceKey } },
    { record: { kind: "device-deactivated", clientIp: "192.0.2.41" } },
  );
  const other = await signInMember(app.services, email, browser);
  await endSessions(
    app.services,
    { sub, allBut: member.sessionId },
    { record: { kind: "other-sessions-ended", clientIp: browser.clientIp } },
  );
  const otherSid = await sidOfSession(other.sessionId);
  expect(await newEvents(sub, after)).toEqual([
    { type: "session.created", data: { sid: origin.origin_jti, device: firefox.deviceName, browser: firefox.browser } },
    revoked(origin.origin_jti, "device-deactivated"),
    { type: "session.created", data: { sid: otherSid, device: firefox.deviceName, browser: firefox.browser } },
    revoked(otherSid, "signed-out-everywhere"),
  ]);
});

test("a browser signing in again replaces its session, and a refused refresh ends one", async () => {
  const member = await signedInMember(app.services, "replaced", browser);
  const { sub, email } = member;
  const deviceKey = crypto.randomUUID();
  const again = { email, password: MEMBER_PASSWORD, deviceKey, ...browser };
  const first = await signIn(app.services, again);
  const after = await lastSequence(sub);
  const firstSid = await sidOfSession(first.kind === "active" ? first.sessionId : "");
  const second = await signIn(app.services, again);
  if (second.kind !== "active") throw new Error(`sign-in ended as ${second.kind}`);
  await endSessions(app.services, { sessionId: second.sessionId, refreshRefused: true });
  const secondSid = await sidOfSession(second.sessionId);
  expect(await newEvents(sub, after)).toEqual([
    revoked(firstSid, "replaced"),
    { type: "session.created", data: { sid: secondSid, device: firefox.deviceName, browser: firefox.browser } },
    revoked(secondSid, "refresh-refused"),
  ]);
});

test("a sign-in held at the device limit is announced only once active; the device it evicts is, with its reason", async () => {
  const member = await signedInMember(app.services, "device-limit", browser);
  const { sub, email } = member;
  await signInMember(app.services, email, browser);
  await signInMember(app.services, email, browser);
  const after = await lastSequence(sub);
  const held = { email, password: MEMBER_PASSWORD, deviceKey: crypto.randomUUID(), ...browser };
  const abandoned = await signIn(app.services, held);
  expect(abandoned.kind).toBe("deviceLimit");
  // Left on the device-limit screen: it never was a session, so no sibling hears of it.
  await endSessions(app.services, { sessionId: "sessionId" in abandoned ? abandoned.sessionId : "" });
  expect(await newEvents(sub, after)).toEqual([]);

  const pending = await signIn(app.services, { ...held, deviceKey: crypto.randomUUID() });
  if (pending.kind !== "deviceLimit") throw new Error(`sign-in ended as ${pending.kind}`);
  const evicted = await deactivateDeviceForPendingSignIn(app.services, {
    pendingSessionId: pending.sessionId,
    deviceSessionId: member.sessionId,
    clientIp: browser.clientIp,
  });
  expect(evicted?.sessionId).toBe(member.sessionId);
  expect(await activatePendingSession(app.services, pending.sessionId)).toMatchObject({ kind: "active" });
  expect(await newEvents(sub, after)).toEqual([
    revoked(await sidOfSession(member.sessionId), "device-limit"),
    {
      type: "session.created",
      data: { sid: await sidOfSession(pending.sessionId), device: firefox.deviceName, browser: firefox.browser },
    },
  ]);
});

test("an ending whose transaction fails announces nothing and ends nothing", async () => {
  const member = await signedInMember(app.services, "rolled-back", browser);
  const after = await lastSequence(member.sub);
  await expect(
    endSessions(
      app.services,
      { sub: member.sub, allBut: crypto.randomUUID() },
      {
        alongside: () => Promise.reject(new Error("the change failed")),
        record: { kind: "other-sessions-ended", clientIp: browser.clientIp },
      },
    ),
  ).rejects.toThrow("the change failed");
  expect(await newEvents(member.sub, after)).toEqual([]);
  const [row] = await app.db.select().from(memberSessions).where(eq(memberSessions.id, member.sessionId));
  expect(row!.revokedAt).toBeNull();
});

test("staff ending a member's sessions, changing their address and turning 2-step off are announced", async () => {
  const member = await memberWithTwoStepIn(app.services, "staff");
  const { sub } = member;
  const [sid] = (await newEvents(sub, 0))
    .filter((event) => event.type === "session.created")
    .map((event) => event.data.sid as string);
  const after = await lastSequence(sub);
  await endMemberSessions(app.services, actor(), sub);
  await turnOffMemberTwoStep(app.services, actor(), sub);
  const newEmail = `staff-moved-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await changeMemberEmail(app.services, actor(), sub, newEmail, i18nextOutsideRequests);
  expect(await newEvents(sub, after)).toEqual([
    revoked(sid!, "staff-ended-sessions"),
    { type: "member.two_step_changed", data: { authenticatorApp: false } },
    { type: "member.email_changed", data: { email: newEmail } },
  ]);
});

test("staff disabling a member announces it with the end of their sessions, and enabling them again", async () => {
  const member = await signedInMember(app.services, "disable", browser);
  const after = await lastSequence(member.sub);
  await disableMember(app.services, actor(), member.sub);
  await enableMember(app.services, actor(), member.sub);
  expect(await newEvents(member.sub, after)).toEqual([
    { type: "member.disabled", data: {} },
    revoked(await sidOfSession(member.sessionId), "staff-disabled"),
    { type: "member.enabled", data: {} },
  ]);
});

test("a cancellation announces the withdrawal and ends every session; the purge announces the deletion", async () => {
  const member = await signedInMember(app.services, "withdrawal", browser);
  const { sub, email } = member;
  const sid = await sidOfSession(member.sessionId);
  const after = await lastSequence(sub);
  const cancellation = { sub, email, reason: "price" as const, locale: "ja" };
  expect(await cancelMembership(app.services, { ...cancellation, password: "not-the-password-at-all" })).toEqual({
    kind: "passwordMismatch",
  });
  expect(await newEvents(sub, after)).toEqual([]);

  await cancelMembership(app.services, { ...cancellation, password: MEMBER_PASSWORD });
  const [profile] = await app.db.select().from(memberProfiles).where(eq(memberProfiles.sub, sub));
  const withdrawnAt = profile!.cancelledAt!;
  expect(await newEvents(sub, after)).toEqual([
    { type: "member.withdrawn", data: { withdrawnAt: withdrawnAt.toISOString() } },
    revoked(sid, "withdrawn"),
  ]);

  const purgedAfter = await lastSequence(sub);
  const fourteenMonthsOn = new Date(withdrawnAt.getTime() + 430 * 24 * 60 * 60 * 1000);
  await purgeCancelledProfiles(app.db, fourteenMonthsOn);
  await purgeCancelledProfiles(app.db, fourteenMonthsOn);
  expect(await newEvents(sub, purgedAfter)).toEqual([{ type: "member.deleted", data: {} }]);
});

test("members made by the CSV import and by a legacy account's first sign-in are announced as created", async () => {
  const staff = { sub: crypto.randomUUID(), email: "staff@example.jp" };
  const imported = `imported-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const validation = await validateImport(
    { db: app.db },
    {
      bytes: new TextEncoder().encode(importCsv([imported])),
      fileName: "members.csv",
      actor: staff,
      requestId: "req",
      store: true,
    },
  );
  if (validation.kind !== "clean" || !validation.jobId) throw new Error("the import file was refused");
  await startImportJob(
    { db: app.db },
    { jobId: validation.jobId, actor: staff, requestId: "req", creationsPerSecond: 50 },
  );
  const worker = startImportWorker(app.services, { creationsPerSecond: 50, concurrency: 1, idlePollMs: 50 });
  try {
    await expect.poll(async () => (await getImportJobProgress(app.db, validation.jobId!))?.state).toBe("completed");
  } finally {
    await worker.stop();
  }
  const { sub: importedSub } = await app.services.identity.getUser(imported);
  expect(await newEvents(importedSub, 0)).toEqual([
    { type: "member.created", data: { email: imported, via: "import" } },
  ]);

  const legacy = `legacy-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await importLegacyRows(app.db, [
    { email: legacy, passwordHash: bcrypt.hashSync(MEMBER_PASSWORD, 4), profile: { familyName: "古川" } },
  ]);
  const migrated = await signInMember(app.services, legacy, browser);
  const events = await newEvents(migrated.sub, 0);
  expect(events.map((event) => event.type)).toEqual(["member.created", "session.created"]);
  expect(events[0]!.data).toEqual({ email: legacy, via: "legacy-migration" });
});

test("the purge deletes events recorded over 30 days ago, with their deliveries, and keeps the newer", async () => {
  const sub = crypto.randomUUID();
  const now = new Date();
  const day = 24 * 60 * 60 * 1000;
  await recordAccountEvent(app.db, { type: "member.disabled", sub, occurredAt: now, data: {} });
  await recordAccountEvent(app.db, { type: "member.enabled", sub, occurredAt: now, data: {} });
  const [old, recent] = await app.db.select().from(accountEvents).where(eq(accountEvents.sub, sub));
  const aged = (days: number) => new Date(now.getTime() - days * day);
  await app.db
    .update(accountEvents)
    .set({ recordedAt: aged(ACCOUNT_EVENT_RETENTION_DAYS + 1) })
    .where(eq(accountEvents.id, old!.id));
  await app.db
    .update(accountEvents)
    .set({ recordedAt: aged(ACCOUNT_EVENT_RETENTION_DAYS - 1) })
    .where(eq(accountEvents.id, recent!.id));
  await app.db.insert(eventDeliveries).values({ eventId: old!.id, service: "data", channel: "webhook" });

  expect((await purgeExpiredAccountEvents(app.db, now)).deleted).toBeGreaterThanOrEqual(1);
  const left = await app.db.select({ id: accountEvents.id }).from(accountEvents).where(eq(accountEvents.sub, sub));
  expect(left).toEqual([{ id: recent!.id }]);
  expect(await app.db.select().from(eventDeliveries).where(eq(eventDeliveries.eventId, old!.id))).toEqual([]);
});
