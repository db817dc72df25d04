import { and, eq, isNull, lt } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { twoStepVerifications } from "~db/schema";
import type { Locale } from "~/i18n/locales";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import { logger } from "~/integrations/logger.server";
import type { TwoStepChange } from "~/integrations/mailer.server";
import type { AppServices, Clock } from "~/services.server";
import { recordAccountEvent } from "../events/account-events.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { countRecoveryCodesLeft, deleteRecoveryCodes, replaceRecoveryCodes } from "./recovery-codes.server";
import { recordSecurityEvent } from "./security-record.server";

export type TwoStepDependencies = Pick<AppServices, "db" | "identity" | "clock">;

/** Whether the member uses 2-step verification, and how many recovery codes they have left: from our tables alone. */
export interface TwoStepStatus {
  enabled: boolean;
  enabledAt: Date | null;
  recoveryCodesLeft: number;
}

/** At or below this many unused recovery codes, the member is told to make new ones. */
export const FEW_RECOVERY_CODES = 3;

export async function twoStepStatusOf(db: Database, sub: string): Promise<TwoStepStatus> {
  const [row] = await db
    .select({ enabledAt: twoStepVerifications.enabledAt })
    .from(twoStepVerifications)
    .where(eq(twoStepVerifications.sub, sub));
  if (!row) return { enabled: false, enabledAt: null, recoveryCodesLeft: 0 };
  return { enabled: true, enabledAt: row.enabledAt, recoveryCodesLeft: await countRecoveryCodesLeft(db, sub) };
}

/**
 * When the member turned the authenticator app on, if Cognito asks for its code at every password sign-in now:
 * null when it is off, or switched off at Cognito for a moment by a recovery code's sign-in (totpOffSince).
 */
export async function authenticatorAppOnSince(db: Database, sub: string): Promise<Date | null> {
  const [row] = await db
    .select({ enabledAt: twoStepVerifications.enabledAt })
    .from(twoStepVerifications)
    .where(and(eq(twoStepVerifications.sub, sub), isNull(twoStepVerifications.totpOffSince)));
  return row?.enabledAt ?? null;
}

/** The member behind a Cognito user name (the code step's challenge), when they use 2-step verification. */
export async function twoStepMemberByUsername(db: Database, username: string): Promise<{ sub: string } | null> {
  const [row] = await db
    .select({ sub: twoStepVerifications.sub })
    .from(twoStepVerifications)
    .where(eq(twoStepVerifications.username, username));
  return row ?? null;
}

/**
 * The otpauth:// URI an authenticator app reads from the QR code (Google Authenticator's Key Uri Format): the
 * issuer and the member's address name the entry in the app; SHA-1, 6 digits and 30 s are Cognito's TOTP.
 */
export function authenticatorKeyUri(input: { issuer: string; email: string; secret: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.email)}`;
  const query = new URLSearchParams({
    secret: input.secret,
    issuer: input.issuer,
    algorithm: "SHA1",
    digits: "6",
    period: "30",
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

/** The key as the member types it into an app without a camera: groups of 4 ("ABCD EFGH …"). */
export function groupedKey(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, "$1 ");
}

/**
 * A new authenticator secret for the member (AssociateSoftwareToken, with the session's server token): shown once,
 * while they set the app up.
 */
export function startAuthenticatorSetup(deps: TwoStepDependencies, input: { token: ServerToken }): Promise<string> {
  return deps.identity.associateSoftwareToken(input.token);
}

interface MemberChange {
  sub: string;
  email: string;
  /** The page's language (or the member's, for staff), for the notice mail of a member without a preferred one. */
  locale: Locale;
}

/** The member's own change: the session and the request's client IP, for the security record. */
interface OwnChange extends MemberChange {
  sessionId: string;
  clientIp: string;
}

async function queueTwoStepNotice(
  tx: Database,
  input: MemberChange & { change: TwoStepChange; now: Date; recoveryCodesLeft: number },
) {
  await queueMail(tx, {
    kind: "twoStepChanged",
    recipient: input.email,
    sub: input.sub,
    requestLocale: input.locale,
    now: input.now,
    details: {
      change: input.change,
      changedAt: input.now.toISOString(),
      recoveryCodesLeft: String(input.recoveryCodesLeft),
    },
  });
}

/**
 * Turns on 2-step verification with the first code from the member's app: Cognito checks it against the secret
 * associated by `startAuthenticatorSetup` (VerifySoftwareToken, with the same server token) and the app becomes the
 * member's second factor (AdminSetUserMFAPreference). Then, in one transaction: our flag, 10 new recovery codes, the
 * security record and the notice mail. Answers the recovery codes, which exist in clear only in this answer.
 */
export async function turnOnTwoStep(
  deps: TwoStepDependencies,
  // No member session on the staff sign-in's first visit (staff-factor-setup.server.ts): then none is recorded.
  input: Omit<OwnChange, "sessionId"> & { sessionId: string | null; token: ServerToken; code: string },
): Promise<string[]> {
  await deps.identity.verifySoftwareToken({ token: input.token, code: input.code });
  await deps.identity.setSoftwareTokenPreferenceOf({ username: input.token.username, enabled: true });
  // Cognito's user name, which the sign-in's challenge will name.
  const { username } = input.token;
  const now = deps.clock.now();
  const codes = await deps.db.transaction(async (tx) => {
    const [wasOn] = await tx
      .select({ sub: twoStepVerifications.sub })
      .from(twoStepVerifications)
      .where(eq(twoStepVerifications.sub, input.sub))
      .for("update");
    await tx
      .insert(twoStepVerifications)
      .values({ sub: input.sub, username, enabledAt: now })
      .onConflictDoUpdate({ target: twoStepVerifications.sub, set: { username, enabledAt: now } });
    if (!wasOn) await recordTwoStepChanged(tx, { sub: input.sub, on: true, now });
    const made = await replaceRecoveryCodes(tx, { sub: input.sub, now });
    await recordSecurityEvent(tx, {
      sub: input.sub,
      kind: "second-factor-added",
      occurredAt: now,
      sessionId: input.sessionId,
      ipAddress: input.clientIp,
    });
    await queueTwoStepNotice(tx, { ...input, change: "enabled", now, recoveryCodesLeft: made.length });
    return made;
  });
  ringMailOutbox();
  return codes;
}

/**
 * "Make new codes": all earlier recovery codes stop working; the new ones are answered, once. Recorded and mailed:
 * whoever made them can sign in without the app, and the member's own printed codes no longer work.
 */
export async function makeNewRecoveryCodes(
  deps: Pick<AppServices, "db" | "clock">,
  input: OwnChange,
): Promise<string[] | null> {
  const now = deps.clock.now();
  const codes = await deps.db.transaction(async (tx) => {
    const [enabled] = await tx
      .select({ sub: twoStepVerifications.sub })
      .from(twoStepVerifications)
      .where(eq(twoStepVerifications.sub, input.sub))
      .for("update");
    if (!enabled) return null;
    const codes = await replaceRecoveryCodes(tx, { sub: input.sub, now });
    await recordSecurityEvent(tx, {
      sub: input.sub,
      kind: "recovery-codes-replaced",
      occurredAt: now,
      sessionId: input.sessionId,
      ipAddress: input.clientIp,
    });
    await queueTwoStepNotice(tx, { ...input, change: "recoveryCodesReplaced", now, recoveryCodesLeft: codes.length });
    return codes;
  });
  if (codes) ringMailOutbox();
  return codes;
}

/**
 * Turns 2-step verification off: at Cognito first (AdminSetUserMFAPreference, whether the member or staff asked), and
 * the secret deleted there (AdminDeleteSoftwareToken), so a lost phone's codes are gone for good and setting up again
 * starts from a new secret; then our flag and the recovery codes, recorded and mailed. Answers false when it was not
 * on.
 */
export async function turnOffTwoStep(
  deps: TwoStepDependencies,
  input: (OwnChange & { by: "member" }) | (MemberChange & { by: "staff" }),
): Promise<boolean> {
  await deps.identity.setSoftwareTokenPreferenceOf({ username: input.sub, enabled: false });
  await deps.identity.deleteSoftwareToken(input.sub);
  const now = deps.clock.now();
  const wasOn = await deps.db.transaction(async (tx) => {
    const removed = await tx
      .delete(twoStepVerifications)
      .where(eq(twoStepVerifications.sub, input.sub))
      .returning({ sub: twoStepVerifications.sub });
    await deleteRecoveryCodes(tx, input.sub);
    if (removed.length === 0) return false;
    await recordTwoStepChanged(tx, { sub: input.sub, on: false, now });
    // Staff's turning off is in their audit log, which the member's record shows (security-activity.server.ts).
    if (input.by === "member") {
      await recordSecurityEvent(tx, {
        sub: input.sub,
        kind: "second-factor-removed",
        occurredAt: now,
        sessionId: input.sessionId,
        ipAddress: input.clientIp,
      });
    }
    const change = input.by === "member" ? "disabled" : "disabledByStaff";
    await queueTwoStepNotice(tx, { ...input, change, now, recoveryCodesLeft: 0 });
    return true;
  });
  if (wasOn) ringMailOutbox();
  return wasOn;
}

/**
 * Tells the siblings that our record of the member's 2-step verification changed, in the transaction that changes
 * it: our record is the truth (factor-reconcile puts Cognito right), so its changes are the ones to announce.
 */
export function recordTwoStepChanged(tx: Database, input: { sub: string; on: boolean; now: Date }): Promise<void> {
  return recordAccountEvent(tx, {
    type: "member.two_step_changed",
    sub: input.sub,
    occurredAt: input.now,
    data: { authenticatorApp: input.on },
  });
}

/**
 * How long a recovery code's sign-in may keep the member's TOTP off at Cognito before a mark it left counts as
 * abandoned: the sign-in takes well under a second, and the Cognito calls time out long before this.
 */
export const TOTP_OFF_REPAIR_AFTER_MS = 60_000;

/** Marks that the member's TOTP is about to be switched off at Cognito (a recovery code's sign-in). */
export async function markTotpOff(db: Database, input: { sub: string; now: Date }): Promise<void> {
  await db.update(twoStepVerifications).set({ totpOffSince: input.now }).where(eq(twoStepVerifications.sub, input.sub));
}

/** The member's TOTP is on again at Cognito: the mark goes. */
export async function clearTotpOffMark(db: Database, sub: string): Promise<void> {
  await db.update(twoStepVerifications).set({ totpOffSince: null }).where(eq(twoStepVerifications.sub, sub));
}

/**
 * The repair of a recovery code's sign-in that died between switching TOTP off at Cognito and on again: every mark
 * older than TOTP_OFF_REPAIR_AFTER_MS is switched on at Cognito, then cleared (only if no newer sign-in marked it
 * meanwhile). Until then a sign-in straight at Cognito (not through our pages, which check the flag) would pass with
 * the password alone. A failure leaves the mark for the next run.
 */
export async function switchAbandonedTotpOn(
  deps: { db: Database; identity: Pick<AppServices["identity"], "setSoftwareTokenPreferenceOf"> },
  now: Date,
): Promise<{ switchedOn: number; owed: number }> {
  const marks = await deps.db
    .select({ sub: twoStepVerifications.sub, since: twoStepVerifications.totpOffSince })
    .from(twoStepVerifications)
    .where(lt(twoStepVerifications.totpOffSince, new Date(now.getTime() - TOTP_OFF_REPAIR_AFTER_MS)));
  let switchedOn = 0;
  for (const mark of marks) {
    try {
      await deps.identity.setSoftwareTokenPreferenceOf({ username: mark.sub, enabled: true });
    } catch (error) {
      logger.warn({ err: error }, "could not switch an abandoned TOTP switch-off back on; the next run tries again");
      continue;
    }
    await deps.db
      .update(twoStepVerifications)
      .set({ totpOffSince: null })
      .where(and(eq(twoStepVerifications.sub, mark.sub), eq(twoStepVerifications.totpOffSince, mark.since!)));
    switchedOn += 1;
  }
  return { switchedOn, owed: marks.length - switchedOn };
}

/**
 * The repair above, every TOTP_OFF_REPAIR_AFTER_MS in every server process, so that a recovery code's sign-in cut
 * off by a crash or a restart leaves TOTP off at Cognito for minutes rather than until the next purge. Both
 * instances may run it: switching TOTP on is the same however often it is done, and a mark is cleared only as read.
 */
export function scheduleTotpOffRepair(deps: {
  db: Database;
  identity: Pick<AppServices["identity"], "setSoftwareTokenPreferenceOf">;
  clock: Clock;
}): () => void {
  return scheduleRepeating(
    async () => {
      try {
        await switchAbandonedTotpOn(deps, deps.clock.now());
      } catch (error) {
        logger.warn({ err: error }, "the repair of abandoned TOTP switch-offs failed; the next run tries again");
      }
    },
    { firstRunDelayMs: TOTP_OFF_REPAIR_AFTER_MS, intervalMs: TOTP_OFF_REPAIR_AFTER_MS },
  );
}
