import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberProfiles, memberSessions, memberSignOuts } from "~db/schema";
import { DomainError } from "../domain-error.server";
import { recordAccountEvent, sidOf } from "../events/account-events.server";
import type { AppServices } from "~/services.server";
import type { DeviceDescription } from "./device-description.server";
import { type SessionDevice, listActiveDevices } from "./device-list.server";
import { lockMember } from "./member-lock.server";
import { type RecordedSignIn, recordSignIn } from "../security/security-record.server";
import { encryptSecret, openRefreshToken, revokeRefreshTokens } from "./refresh-tokens.server";
import { type EndedSession, endSessionRows, endSessions, outdatedBrowserEntries } from "./session-ending.server";

type SessionServices = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/** How long a sign-in may wait on the device-limit screen before the member must sign in again. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60 * 1000;

export type StartSessionResult =
  /** `reused`: the same sign-in was already recorded for this device, and nothing changed but its login time. */
  | { kind: "active"; sessionId: string; reused?: boolean; signIn?: RecordedSignIn }
  | { kind: "deviceLimit"; sessionId: string; devices: SessionDevice[]; signIn?: RecordedSignIn };

/** Whether the member cancelled; read under lockMember, so a cancellation cannot commit in between. */
async function isCancelled(tx: Database, sub: string): Promise<boolean> {
  const [row] = await tx
    .select({ cancelledAt: memberProfiles.cancelledAt })
    .from(memberProfiles)
    .where(eq(memberProfiles.sub, sub));
  return !!row?.cancelledAt;
}

/**
 * Whether the member was signed out everywhere (a password change, a staff action) after Cognito issued this
 * sign-in's tokens; read under lockMember, which signOutEverywhere records under too, so either the sign-out ends
 * the session this sign-in records, or this sign-in sees the sign-out.
 */
async function signedOutSince(tx: Database, sub: string, issuedAt: Date): Promise<boolean> {
  const [row] = await tx
    .select({ signedOutAt: memberSignOuts.signedOutAt })
    .from(memberSignOuts)
    .where(eq(memberSignOuts.sub, sub));
  return !!row && row.signedOutAt > issuedAt;
}

/**
 * Records a successful authentication for a browser. A new session row every time (never the old id); the
 * browser's previous session, if any, ends, and so does an outdated entry of the same Safari (see
 * outdatedBrowserEntries); their refresh tokens are revoked at Cognito once the transaction has committed. Within
 * the device limit it is active at once; over it, pages hold it (pending) for the member to deactivate devices on
 * the device-limit screen, while the API refuses it (no row: the caller frees a slot and registers again).
 * Registering the same sign-in for the same device again (the API retried) changes nothing but the login time.
 * A new session's sign-in goes into the member's security record in the same transaction (`signIn` in the result);
 * a held one too, since the member did authenticate.
 * A cancelled member gets no session (DomainError "invalidCredentials", as a wrong password reads): a sign-in
 * that authenticated at Cognito just before the cancellation deleted the user must not outlive it. Nor does a
 * sign-in whose tokens were issued before the member was signed out everywhere (a staff disable or sign-out, a
 * password change) while its request was on its way from Cognito to here.
 */
export async function startSession(
  services: SessionServices,
  input: {
    sub: string;
    email: string;
    deviceKey: string;
    device: DeviceDescription;
    refreshToken: string;
    /** The sign-in's `origin_jti` (null only when Cognito issues tokens without revocation support). */
    originJti: string | null;
    /** When Cognito issued the sign-in's access token (`iat`). */
    issuedAt: Date;
    overLimit: "hold" | "refuse";
    /** The client IP of the sign-in's request, for the security record. */
    clientIp: string;
    /** The member typed their password for this sign-in (not a sibling's device registered by its refresh token). */
    passwordTyped: boolean;
  },
  /**
   * Runs in the same transaction once the new session and its sign-in event are in, with what the event says about
   * the browser (the sign-in alert is queued from it).
   */
  alongside?: (tx: Database, sessionId: string, signIn: RecordedSignIn) => Promise<void>,
): Promise<StartSessionResult> {
  const now = services.clock.now();
  const { deviceLimit, sessionSecrets } = services.config;
  const { result, endedRefreshTokens } = await services.db.transaction(async (tx) => {
    await lockMember(tx, input.sub);
    if (await isCancelled(tx, input.sub)) {
      throw new DomainError("invalidCredentials", { cause: new Error("the membership is cancelled") });
    }
    if (await signedOutSince(tx, input.sub, input.issuedAt)) {
      throw new DomainError("invalidCredentials", { cause: new Error("signed out everywhere after the tokens") });
    }
    const ownLive = and(
      eq(memberSessions.sub, input.sub),
      eq(memberSessions.deviceKey, input.deviceKey),
      isNull(memberSessions.revokedAt),
    )!;
    if (input.originJti) {
      const [same] = await tx
        .update(memberSessions)
        .set({ lastLoginAt: now, ...(input.passwordTyped ? { passwordVerifiedAt: now } : {}) })
        .where(and(ownLive, isNotNull(memberSessions.activatedAt), eq(memberSessions.originJti, input.originJti)))
        .returning({ id: memberSessions.id });
      if (same) {
        return { result: { kind: "active", sessionId: same.id, reused: true } as const, endedRefreshTokens: [] };
      }
    }
    // This browser's own earlier session makes way for the new one rather than taking a second slot.
    const replaced = await endSessionRows(tx, ownLive, now, "replaced");
    const outdatedCondition = outdatedBrowserEntries({
      sub: input.sub,
      device: input.device,
      keep: { deviceKey: input.deviceKey },
    });
    const outdated = outdatedCondition ? await endSessionRows(tx, outdatedCondition, now, "replaced") : [];
    const endedRefreshTokens = [...replaced, ...outdated].map((row) => row.refreshTokenEncrypted);
    const others = await listActiveDevices(tx, input.sub);
    const withinLimit = others.length < deviceLimit;
    if (!withinLimit && input.overLimit === "refuse") {
      return { result: { kind: "deviceLimit", sessionId: "", devices: others } as const, endedRefreshTokens };
    }
    const [row] = await tx
      .insert(memberSessions)
      .values({
        sub: input.sub,
        email: input.email,
        deviceKey: input.deviceKey,
        deviceName: input.device.deviceName,
        browser: input.device.browser,
        refreshTokenEncrypted: encryptSecret(input.refreshToken, sessionSecrets),
        originJti: input.originJti,
        createdAt: now,
        lastLoginAt: now,
        activatedAt: withinLimit ? now : null,
        passwordVerifiedAt: input.passwordTyped ? now : null,
      })
      .returning({ id: memberSessions.id });
    const sessionId = row!.id;
    if (withinLimit) {
      await recordSessionCreated(tx, {
        sub: input.sub,
        session: { id: sessionId, originJti: input.originJti },
        device: input.device,
        now,
      });
    }
    const signIn = await recordSignIn(tx, {
      sub: input.sub,
      sessionId,
      deviceKey: input.deviceKey,
      deviceName: input.device.deviceName,
      browser: input.device.browser,
      ipAddress: input.clientIp,
      occurredAt: now,
    });
    await alongside?.(tx, sessionId, signIn);
    const result: StartSessionResult = withinLimit
      ? { kind: "active", sessionId, signIn }
      : { kind: "deviceLimit", sessionId, devices: others, signIn };
    return { result, endedRefreshTokens };
  });
  await revokeRefreshTokens(services, endedRefreshTokens);
  return result;
}

/**
 * Continues a sign-in held at the device limit, once the member has freed a slot. Still over the limit (or the
 * pending sign-in expired or was revoked): the current device list, so the screen can say so.
 */
export async function activatePendingSession(
  services: Pick<AppServices, "db" | "config" | "clock">,
  sessionId: string,
): Promise<StartSessionResult | { kind: "expired" }> {
  const now = services.clock.now();
  return services.db.transaction(async (tx) => {
    const pending = await findPendingSession(tx, sessionId, now);
    if (!pending) return { kind: "expired" };
    await lockMember(tx, pending.sub);
    if (await isCancelled(tx, pending.sub)) return { kind: "expired" };
    const others = await listActiveDevices(tx, pending.sub);
    if (others.length >= services.config.deviceLimit) {
      return { kind: "deviceLimit", sessionId: pending.id, devices: others };
    }
    await tx
      .update(memberSessions)
      .set({ activatedAt: now, lastLoginAt: now })
      .where(eq(memberSessions.id, pending.id));
    await recordSessionCreated(tx, { sub: pending.sub, session: pending, device: pending, now });
    return { kind: "active", sessionId: pending.id };
  });
}

/** A session became active: the siblings hear of it (`session.created`) in the transaction that activates it. */
function recordSessionCreated(
  tx: Database,
  input: { sub: string; session: { id: string; originJti: string | null }; device: DeviceDescription; now: Date },
): Promise<void> {
  return recordAccountEvent(tx, {
    type: "session.created",
    sub: input.sub,
    occurredAt: input.now,
    data: { sid: sidOf(input.session), device: input.device.deviceName, browser: input.device.browser },
  });
}

async function findPendingSession(db: Database, sessionId: string, now: Date) {
  const [row] = await db
    .select({
      id: memberSessions.id,
      sub: memberSessions.sub,
      createdAt: memberSessions.createdAt,
      refreshTokenEncrypted: memberSessions.refreshTokenEncrypted,
      deviceKey: memberSessions.deviceKey,
      deviceName: memberSessions.deviceName,
      browser: memberSessions.browser,
      originJti: memberSessions.originJti,
      lastLoginAt: memberSessions.lastLoginAt,
    })
    .from(memberSessions)
    .where(and(eq(memberSessions.id, sessionId), isNull(memberSessions.revokedAt), isNull(memberSessions.activatedAt)));
  if (!row || now.getTime() - row.createdAt.getTime() > PENDING_SIGN_IN_TTL_MS) return null;
  return row;
}

/**
 * For the device-limit screen: the browser signing in (its held sign-in, marked current) and the devices it competes
 * with; null when there is no such pending sign-in. The browser's own earlier session, if it had one, is not among
 * them: startSession ended it so that the held sign-in takes its place, so the held sign-in is this browser's session
 * of the member, the one the screen marks "Currently logged in".
 */
export async function listDevicesForPendingSession(
  services: Pick<AppServices, "db" | "clock">,
  sessionId: string,
): Promise<{ sub: string; signingIn: SessionDevice; devices: SessionDevice[] } | null> {
  const pending = await findPendingSession(services.db, sessionId, services.clock.now());
  if (!pending) return null;
  const { id, deviceKey, deviceName, browser, lastLoginAt } = pending;
  return {
    sub: pending.sub,
    signingIn: { id, deviceKey, deviceName, browser, lastLoginAt, lastActiveAt: null, current: true },
    devices: await listActiveDevices(services.db, pending.sub),
  };
}

/**
 * Deactivates one of the devices a pending sign-in competes with, from the device-limit screen: only a device of
 * the member whose sign-in waits. Null when nothing was deactivated.
 */
export async function deactivateDeviceForPendingSignIn(
  services: SessionServices,
  input: { pendingSessionId: string; deviceSessionId: string; clientIp: string },
): Promise<EndedSession | null> {
  const pending = await findPendingSession(services.db, input.pendingSessionId, services.clock.now());
  if (!pending) return null;
  const [ended] = await endSessions(
    services,
    { sub: pending.sub, device: { sessionId: input.deviceSessionId } },
    { record: { kind: "device-deactivated", clientIp: input.clientIp }, reason: "device-limit" },
  );
  return ended ?? null;
}

export type ContinuedSignIn =
  { kind: "active"; sessionId: string; accessToken: string } | { kind: "deviceLimit" } | { kind: "expired" };

/**
 * Continues a sign-in from the device-limit screen: active (with the access token for the cookie), still over the
 * limit, or expired. The held sign-in kept only its refresh token, so one refresh gives the access token; it comes
 * before the activation, so Cognito being down or throttling (a DomainError) leaves the sign-in held and no slot
 * taken.
 */
export async function continuePendingSignIn(
  services: SessionServices,
  pendingSessionId: string,
): Promise<ContinuedSignIn> {
  const pending = await findPendingSession(services.db, pendingSessionId, services.clock.now());
  if (!pending) return { kind: "expired" };
  // Still over the limit: no need to ask Cognito (activatePendingSession checks again under the member's lock).
  if ((await listActiveDevices(services.db, pending.sub)).length >= services.config.deviceLimit) {
    return { kind: "deviceLimit" };
  }
  const refreshToken = openRefreshToken(pending, services.config.sessionSecrets);
  if (!refreshToken) return { kind: "expired" };
  const tokens = await services.identity.refresh(refreshToken);
  const outcome = await activatePendingSession(services, pendingSessionId);
  if (outcome.kind !== "active") return { kind: outcome.kind };
  return { kind: "active", sessionId: pendingSessionId, accessToken: tokens.accessToken };
}
