import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { recordSignOutEverywhere, tokenStanding } from "~/domain/sessions/api-token-standing.server";
import { activatePendingSession, startSession } from "~/domain/sessions/device-admission.server";
import { listActiveDevices } from "~/domain/sessions/device-list.server";
import { findLiveSession, renewSessionSignIn } from "~/domain/sessions/page-sessions.server";
import { openRefreshToken } from "~/domain/sessions/refresh-tokens.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { systemClock } from "~/services.server";
import { memberProfiles, memberSessions } from "~db/schema";
import { useTestDatabase } from "../../support/test-database";

const SECRETS = ["k".repeat(32)];
const DEVICE = { deviceName: "Android 14", browser: "Chrome 131" };
const database = useTestDatabase("sessions");

/** No Cognito in this file: a revoked refresh token is only recorded here. */
const revokedAtCognito: string[] = [];
const identity = {
  revokeRefreshToken: async (refreshToken: string) => void revokedAtCognito.push(refreshToken),
} as unknown as IdentityProvider;
const baseConfig = parseConfig({});

function services(options: { deviceLimit?: number; now?: Date } = {}) {
  const { now } = options;
  return {
    db: database().db,
    identity,
    config: { ...baseConfig, sessionSecrets: SECRETS, deviceLimit: options.deviceLimit ?? 2 },
    clock: now ? { now: () => now } : systemClock,
  };
}

/** Deactivates one of the member's devices; the ended session or null. */
async function deactivate(sub: string, device: { sessionId: string } | { deviceKey: string }) {
  return (await endSessions(services(), { sub, device }))[0] ?? null;
}

/** A token's standing, for a token issued now unless said otherwise. */
const standingOf = (sub: string, originJti: string | null, issuedAt = new Date()) =>
  tokenStanding(database().db, { sub, originJti, issuedAt });

function start(sub: string, deviceKey: string, deviceLimit = 2) {
  return startSession(services({ deviceLimit }), {
    sub,
    email: `${sub.slice(0, 8)}@example.jp`,
    deviceKey,
    device: DEVICE,
    refreshToken: `refresh-${deviceKey}`,
    originJti: null,
    issuedAt: new Date(),
    overLimit: "hold",
    clientIp: "192.0.2.1",
    passwordTyped: true,
  });
}

test("every sign-in gets a new session id and ends the browser's previous session", async () => {
  const sub = crypto.randomUUID();
  const first = await start(sub, "browser-a");
  const second = await start(sub, "browser-a");
  expect(first.kind).toBe("active");
  expect(second.sessionId).not.toBe(first.sessionId);
  expect(await findLiveSession(database().db, first.sessionId)).toBeNull();
  const live = await findLiveSession(database().db, second.sessionId);
  expect(live?.sub).toBe(sub);
  expect(openRefreshToken(live!, SECRETS)).toBe("refresh-browser-a");
});

test("over the device limit a sign-in waits, and continues once a device is deactivated", async () => {
  const sub = crypto.randomUUID();
  const a = await start(sub, "a");
  await start(sub, "b");
  const c = await start(sub, "c");
  expect(c.kind).toBe("deviceLimit");
  if (c.kind !== "deviceLimit") return;
  expect(c.devices).toHaveLength(2);
  expect(await findLiveSession(database().db, c.sessionId)).toBeNull();
  expect((await activatePendingSession(services({ deviceLimit: 2 }), c.sessionId)).kind).toBe("deviceLimit");

  expect(await deactivate(sub, { sessionId: a.sessionId })).toMatchObject({ deviceName: "Android 14" });
  expect(await activatePendingSession(services({ deviceLimit: 2 }), c.sessionId)).toEqual({
    kind: "active",
    sessionId: c.sessionId,
  });
  expect(await findLiveSession(database().db, a.sessionId)).toBeNull();
  expect(await findLiveSession(database().db, c.sessionId)).not.toBeNull();
});

test("a member cannot deactivate another member's device", async () => {
  const owner = crypto.randomUUID();
  const { sessionId } = await start(owner, "owner-browser");
  expect(await deactivate(crypto.randomUUID(), { sessionId })).toBeNull();
  expect(await findLiveSession(database().db, sessionId)).not.toBeNull();
});

test("a posted device id that is no session id deactivates nothing, and is no database error", async () => {
  const sub = crypto.randomUUID();
  await start(sub, "phone");
  for (const sessionId of ["", "not-a-uuid", "１２３", "\u0000", "x".repeat(10_000)]) {
    expect(await deactivate(sub, { sessionId })).toBeNull();
  }
  expect(await listActiveDevices(database().db, sub, {})).toHaveLength(1);
});

test("a pending sign-in expires after ten minutes", async () => {
  const sub = crypto.randomUUID();
  await start(sub, "x", 1);
  const pending = await start(sub, "y", 1);
  const later = new Date(Date.now() + 11 * 60 * 1000);
  expect(await activatePendingSession(services({ deviceLimit: 5, now: later }), pending.sessionId)).toEqual({
    kind: "expired",
  });
});

test("concurrent sign-ins at the limit never exceed it", async () => {
  const sub = crypto.randomUUID();
  const results = await Promise.all(Array.from({ length: 8 }, (_, index) => start(sub, `parallel-${index}`, 3)));
  expect(results.filter((result) => result.kind === "active")).toHaveLength(3);
  expect(results.filter((result) => result.kind === "deviceLimit")).toHaveLength(5);
});

test("a session ends once, and its refresh token is revoked at Cognito", async () => {
  const { sessionId } = await start(crypto.randomUUID(), "ending");
  expect(await endSessions(services(), { sessionId })).toHaveLength(1);
  expect(revokedAtCognito).toContain("refresh-ending");
  expect(await endSessions(services(), { sessionId })).toEqual([]);
  expect(await findLiveSession(database().db, sessionId)).toBeNull();
});

const SAFARI = { deviceName: "macOS Sonoma", browser: "Safari 17" };

function register(
  sub: string,
  deviceKey: string,
  originJti: string,
  options: { device?: typeof DEVICE; limit?: number } = {},
) {
  return startSession(services({ deviceLimit: options.limit ?? 2 }), {
    sub,
    email: "api@example.jp",
    deviceKey,
    device: options.device ?? DEVICE,
    refreshToken: `refresh-${originJti}`,
    originJti,
    issuedAt: new Date(),
    overLimit: "refuse",
    clientIp: "192.0.2.1",
    passwordTyped: false,
  });
}

test("a renewed sign-in replaces a live session's refresh token and origin; an ended session stays ended", async () => {
  const sub = crypto.randomUUID();
  const kept = await start(sub, "kept");
  const ended = await start(sub, "ended");
  await endSessions(services(), { sessionId: ended.sessionId });
  for (const { sessionId } of [kept, ended]) {
    await renewSessionSignIn(services(), { sessionId, refreshToken: "renewed", originJti: "new-origin" });
  }
  const live = await findLiveSession(database().db, kept.sessionId);
  expect(openRefreshToken(live!, SECRETS)).toBe("renewed");
  expect(await standingOf(sub, "new-origin")).toBe("live");
  const [endedRow] = await database().db.select().from(memberSessions).where(eq(memberSessions.id, ended.sessionId));
  expect(endedRow?.revokedAt).not.toBeNull();
  expect(openRefreshToken(endedRow!, SECRETS)).toBe("refresh-ended");
});

test("the session check reads the member's stored profile in the same query, null before one is saved", async () => {
  const sub = crypto.randomUUID();
  const { sessionId } = await start(sub, "profile");
  expect((await findLiveSession(database().db, sessionId))?.profile).toBeNull();
  await database().db.insert(memberProfiles).values({
    sub,
    familyName: "山田",
    givenName: "花子",
    birthYear: 1990,
    country: "JP",
    prefecture: "東京都",
    preferredLanguage: "en",
  });
  expect((await findLiveSession(database().db, sessionId))?.profile).toEqual({
    familyName: "山田",
    givenName: "花子",
    birthYear: 1990,
    country: "JP",
    prefecture: "東京都",
    occupation: null,
    organization: null,
    preferredLanguage: "en",
  });
});

test("the API registers a device once: the same sign-in registered again keeps its row", async () => {
  const sub = crypto.randomUUID();
  const first = await register(sub, "key-1", "jti-1");
  const again = await register(sub, "key-1", "jti-1");
  expect(again).toEqual({ kind: "active", sessionId: first.sessionId, reused: true });
  expect(await listActiveDevices(database().db, sub, { originJti: "jti-1" })).toEqual([
    expect.objectContaining({ deviceKey: "key-1", current: true }),
  ]);
});

test("over the limit the API refuses and records nothing", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "k1", "j1");
  await register(sub, "k2", "j2");
  const refused = await register(sub, "k3", "j3");
  expect(refused).toMatchObject({ kind: "deviceLimit", sessionId: "" });
  expect(await listActiveDevices(database().db, sub, {})).toHaveLength(2);
  expect(await standingOf(sub, "j3")).toBe("unregistered");
});

test("a Safari that lost its device key replaces its own outdated entry instead of taking a slot", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "safari-old-key", "s1", { device: SAFARI });
  await register(sub, "chrome", "c1");
  const returning = await register(sub, "safari-new-key", "s2", { device: SAFARI });
  expect(returning.kind).toBe("active");
  expect(revokedAtCognito).toContain("refresh-s1");
  const keys = (await listActiveDevices(database().db, sub, {})).map((device) => device.deviceKey).sort();
  expect(keys).toEqual(["chrome", "safari-new-key"]);
  expect(await standingOf(sub, "s1")).toBe("ended");
});

test("other browsers with the same description keep their entries", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "chrome-1", "c1");
  await register(sub, "chrome-2", "c2");
  expect(await listActiveDevices(database().db, sub, {})).toHaveLength(2);
});

test("the outdated-Safari clean-up on its own ends the other entries of that Safari, keeping the asking one", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "current", "s-current", { device: SAFARI, limit: 5 });
  await register(sub, "chrome", "c-1", { limit: 5 });
  // An entry recorded before the rule existed (registration would have ended it): only the clean-up can.
  const now = new Date();
  const [old] = await database()
    .db.insert(memberSessions)
    .values({
      sub,
      email: "api@example.jp",
      deviceKey: "lost-key",
      deviceName: SAFARI.deviceName,
      browser: SAFARI.browser,
      refreshTokenEncrypted: "sealed-old",
      originJti: "s-old",
      activatedAt: now,
    })
    .returning();
  const ended = await endSessions(services(), { sub, outdatedBrowser: SAFARI, keepOriginJti: "s-current" });
  expect(ended.map((session) => session.sessionId)).toEqual([old!.id]);
  const remaining = await listActiveDevices(database().db, sub, { originJti: "s-current" });
  expect(remaining.map((device) => device.deviceKey).sort()).toEqual(["chrome", "current"]);
  expect(remaining.find((device) => device.current)?.deviceKey).toBe("current");
  // Not a browser that loses its key: nothing to clean up.
  expect(await endSessions(services(), { sub, outdatedBrowser: DEVICE, keepOriginJti: "x" })).toHaveLength(0);
});

test("a token's standing follows its session: live, ended, unregistered, cancelled", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "key", "live-jti");
  expect(await standingOf(sub, "live-jti")).toBe("live");
  expect(await standingOf(sub, "never-seen")).toBe("unregistered");
  expect(await standingOf(sub, null)).toBe("unregistered");
  // Another member's sign-in id says nothing about this member's token.
  expect(await standingOf(crypto.randomUUID(), "live-jti")).toBe("unregistered");
  await deactivate(sub, { deviceKey: "key" });
  expect(await standingOf(sub, "live-jti")).toBe("ended");
  await database().db.insert(memberProfiles).values({ sub, cancelledAt: new Date() });
  expect(await standingOf(sub, "never-seen")).toBe("cancelled");
});

test("after a sign-out everywhere, tokens no session records are ended if issued before it; live sessions stay", async () => {
  const sub = crypto.randomUUID();
  await register(sub, "kept", "kept-jti");
  const signedOutAt = new Date();
  const before = new Date(signedOutAt.getTime() - 60_000);
  const after = new Date(signedOutAt.getTime() + 1_000);
  expect(await standingOf(sub, "sibling-jti", before)).toBe("unregistered");
  await recordSignOutEverywhere(database().db, sub, signedOutAt);
  expect(await standingOf(sub, "sibling-jti", before)).toBe("ended");
  expect(await standingOf(sub, null, before)).toBe("ended");
  expect(await standingOf(sub, "sibling-jti", after)).toBe("unregistered");
  expect(await standingOf(sub, "kept-jti", before)).toBe("live");
  // Another member's sign-out says nothing about this one's tokens; a second sign-out moves the time on.
  expect(await standingOf(crypto.randomUUID(), "sibling-jti", before)).toBe("unregistered");
  await recordSignOutEverywhere(database().db, sub, new Date(after.getTime() + 1_000));
  expect(await standingOf(sub, "sibling-jti", after)).toBe("ended");
});
