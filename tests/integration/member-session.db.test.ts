import { expect, test } from "vitest";
import {
  activatePendingSession,
  deactivateDevice,
  endSession,
  findLiveSession,
  openRefreshToken,
  startSession,
} from "~/domain/member-session.server";
import { useTestDatabase } from "../support/test-database";

const SECRETS = ["k".repeat(32)];
const DEVICE = { deviceName: "iOS 17.4", browser: "Safari 17" };
const database = useTestDatabase("sessions");

function start(sub: string, deviceKey: string, deviceLimit = 2) {
  return startSession(database().db, {
    sub,
    email: `${sub.slice(0, 8)}@example.jp`,
    deviceKey,
    device: DEVICE,
    refreshToken: `refresh-${deviceKey}`,
    deviceLimit,
    secrets: SECRETS,
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
  expect((await activatePendingSession(database().db, { sessionId: c.sessionId, deviceLimit: 2 })).kind).toBe("deviceLimit");

  expect(await deactivateDevice(database().db, { sub, sessionId: a.sessionId })).toMatchObject({ deviceName: "iOS 17.4" });
  expect(await activatePendingSession(database().db, { sessionId: c.sessionId, deviceLimit: 2 })).toEqual({
    kind: "active",
    sessionId: c.sessionId,
  });
  expect(await findLiveSession(database().db, a.sessionId)).toBeNull();
  expect(await findLiveSession(database().db, c.sessionId)).not.toBeNull();
});

test("a member cannot deactivate another member's device", async () => {
  const owner = crypto.randomUUID();
  const { sessionId } = await start(owner, "owner-browser");
  expect(await deactivateDevice(database().db, { sub: crypto.randomUUID(), sessionId })).toBeNull();
  expect(await findLiveSession(database().db, sessionId)).not.toBeNull();
});

test("a pending sign-in expires after ten minutes", async () => {
  const sub = crypto.randomUUID();
  await start(sub, "x", 1);
  const pending = await start(sub, "y", 1);
  const later = new Date(Date.now() + 11 * 60 * 1000);
  expect(await activatePendingSession(database().db, { sessionId: pending.sessionId, deviceLimit: 5, now: later })).toEqual({
    kind: "expired",
  });
});

test("concurrent sign-ins at the limit never exceed it", async () => {
  const sub = crypto.randomUUID();
  const results = await Promise.all(Array.from({ length: 8 }, (_, index) => start(sub, `parallel-${index}`, 3)));
  expect(results.filter((result) => result.kind === "active")).toHaveLength(3);
  expect(results.filter((result) => result.kind === "deviceLimit")).toHaveLength(5);
});

test("a session ends once; its refresh token comes back for revocation", async () => {
  const { sessionId } = await start(crypto.randomUUID(), "ending");
  const sealed = await endSession(database().db, sessionId);
  expect(openRefreshToken({ refreshTokenEncrypted: sealed! }, SECRETS)).toBe("refresh-ending");
  expect(await endSession(database().db, sessionId)).toBeNull();
  expect(await findLiveSession(database().db, sessionId)).toBeNull();
});
