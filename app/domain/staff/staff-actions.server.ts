import { and, count, eq, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import { emailChangeTokens, memberDirectory, memberSessions } from "~db/schema";
import { DEFAULT_LOCALE, type Locale, isLocale } from "~/i18n/locales";
import type { IdentityUser } from "~/integrations/cognito/identity-provider.server";
import type { MailTexts } from "~/integrations/mailer.server";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import type { Database } from "~db/client.server";
import { isAddressTaken } from "../account/email-change.server";
import {
  type PendingCognitoChange,
  callCognitoForPendingChange,
  claimPendingCognitoChange,
  notePendingCognitoChange,
} from "../account/pending-cognito-changes.server";
import { recordAccountEvent } from "../events/account-events.server";
import { type DirectoryEntry, refreshDirectoryEntry } from "../directory/member-directory.server";
import { turnOffTwoStep, twoStepStatusOf } from "../security/two-step-verification.server";
import { lockMember } from "../sessions/member-lock.server";
import { signOutEverywhere } from "../sessions/session-ending.server";
import { type StaffAction, type StaffActor, recordStaffAction } from "./staff-audit-log.server";

/**
 * What staff do to one member, one verb per action. Each refuses a sub that names no member and, except the refresh,
 * a member who is staff (isStaffAccount), does the work, then appends the audit event (who, what, the member's state before and after, the request). The edges (the admin
 * pages and the admin API) check the admin group, CSRF and the staff rate limit before calling these.
 */

export type StaffServices = Pick<AppServices, "db" | "identity" | "mailer" | "config" | "clock">;

/** The admin acting, and the request the action came in (the audit event quotes it). */
export interface StaffActionActor extends StaffActor {
  requestId: string;
}

const SubSchema = z.uuid();

/**
 * Whether a member with these groups is staff. Staff members' accounts (a colleague's, or one's own) are looked after
 * in the AWS console, never by the staff pages or API: one staff member could otherwise take over another's account
 * (a new address, then a password reset) or lock the others out. The pages read the groups from the directory (no
 * Cognito call on a page view); the actions ask Cognito, so a member made staff a moment ago is refused too.
 */
export function isStaffAccount(groups: readonly string[], adminGroup: string): boolean {
  return groups.includes(adminGroup);
}

/**
 * The member as Cognito has it now; a sub that is no UUID or that Cognito does not know is "memberNotFound", and a
 * staff member is "targetIsStaff". The refusal is audited: the pages never offer the action on staff, so it is a
 * forged request or a page older than the member's promotion, which is what the log is there to show.
 */
async function requireTarget(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
  action: StaffAction,
): Promise<IdentityUser> {
  if (!SubSchema.safeParse(targetSub).success) throw new DomainError("memberNotFound");
  let target: IdentityUser;
  let groups: string[];
  try {
    [target, groups] = await Promise.all([
      services.identity.getUser(targetSub),
      services.identity.listGroupsForUser(targetSub),
    ]);
  } catch (error) {
    if (error instanceof DomainError && error.code === "userNotFound") throw new DomainError("memberNotFound");
    throw error;
  }
  if (isStaffAccount(groups, services.config.adminGroup)) {
    await audit(services, actor, { action: "user.action-refused", targetSub, before: null, after: { action } });
    throw new DomainError("targetIsStaff");
  }
  return target;
}

/**
 * The admin behind a bearer token (the admin API): the token carries no e-mail, so it comes from the directory, or
 * from Cognito when the directory does not have the admin yet.
 */
export async function findStaffActor(services: StaffServices, sub: string): Promise<StaffActor> {
  const [row] = await services.db
    .select({ email: memberDirectory.email })
    .from(memberDirectory)
    .where(eq(memberDirectory.sub, sub));
  return { sub, email: row?.email ?? (await services.identity.getUser(sub)).email };
}

function audit(
  services: StaffServices,
  actor: StaffActionActor,
  event: Omit<Parameters<typeof recordStaffAction>[1], "actor" | "requestId">,
) {
  return recordStaffAction(services.db, {
    actor: { sub: actor.sub, email: actor.email },
    requestId: actor.requestId,
    ...event,
  });
}

/** The member's language for mail: Cognito's `locale` attribute, Japanese when it is unset or unknown. */
function mailLocaleOf(user: IdentityUser): Locale {
  const locale = user.attributes.locale;
  return isLocale(locale) ? locale : DEFAULT_LOCALE;
}

async function countLiveSessions(services: StaffServices, sub: string): Promise<number> {
  const [row] = await services.db
    .select({ live: count() })
    .from(memberSessions)
    .where(and(eq(memberSessions.sub, sub), isNull(memberSessions.revokedAt)));
  return row?.live ?? 0;
}

export interface StaffRefreshResult {
  /** Cognito has no user of this sub (any longer): the directory row says so now. */
  missing: boolean;
  /** The directory fields Cognito's answer changed, each with its value before and after. */
  changes: Record<string, { before: unknown; after: unknown }>;
}

function valuesOf(entry: DirectoryEntry | null, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, entry?.[field as keyof DirectoryEntry] ?? null]));
}

/**
 * Reads the member again from Cognito into the directory and says what changed. A sub neither the directory nor
 * Cognito knows is "memberNotFound"; one only the directory knows is now marked missing from Cognito. Staff members
 * may be refreshed: it changes nothing of their account, only our copy, and is how the page learns that someone
 * joined or left the staff group.
 */
export async function refreshMember(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
): Promise<StaffRefreshResult> {
  if (!SubSchema.safeParse(targetSub).success) throw new DomainError("memberNotFound");
  const refresh = await refreshDirectoryEntry(services, targetSub);
  if (refresh.missing && !refresh.before) throw new DomainError("memberNotFound");
  const before = valuesOf(refresh.before, refresh.changedFields);
  const after = valuesOf(refresh.after, refresh.changedFields);
  await audit(services, actor, {
    action: "user.refresh",
    targetSub,
    before,
    after: { ...after, missing: refresh.missing },
  });
  const changes = Object.fromEntries(
    refresh.changedFields.map((field) => [field, { before: before[field], after: after[field] }]),
  );
  return { missing: refresh.missing, changes };
}

export interface StaffEmailChangeResult {
  oldEmail: string;
  newEmail: string;
  /** The member's own pending e-mail-change links that stopped working. */
  voidedLinks: number;
  /** Whether each notice was handed to the mail server; a failed one does not undo the change. */
  notified: { oldAddress: boolean; newAddress: boolean };
}

/**
 * Sets the member's address, verified, at Cognito and on their sessions; voids the member's own pending change
 * links (one of them would otherwise switch the address back); and tells both addresses, in the member's language.
 * Refuses the member's current address and one another member uses: the directory's e-mail key (no Cognito call),
 * Cognito's own lookup (the directory may lag a sign-up), and Cognito's refusal when a sign-up takes it meanwhile.
 * The change is noted before Cognito is asked: cut off between Cognito and our record (a retry is then refused as
 * the same address), it is recorded by the repair once Cognito is seen to hold the new address.
 */
export async function changeMemberEmail(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
  requestedEmail: string,
  /** The request's i18next instance, which the notices' text comes from. */
  mailTexts: MailTexts,
): Promise<StaffEmailChangeResult> {
  const target = await requireTarget(services, actor, targetSub, "user.email-change");
  const newEmail = requestedEmail.trim().toLowerCase();
  if (newEmail === target.email.toLowerCase()) throw new DomainError("sameAddress");
  const [holder] = await services.db
    .select({ sub: memberDirectory.sub })
    .from(memberDirectory)
    .where(
      and(
        eq(memberDirectory.emailKey, newEmail),
        ne(memberDirectory.sub, targetSub),
        // A row Cognito no longer has (a cancelled member's) keeps its address for staff, but frees it.
        isNull(memberDirectory.missingFromCognitoAt),
      ),
    )
    .limit(1);
  if (holder || (await isAddressTaken(services.identity, newEmail, targetSub))) {
    throw new DomainError("emailUnavailable");
  }

  const pendingId = await notePendingCognitoChange(services.db, {
    sub: targetSub,
    email: target.email,
    kind: "staff-email-change",
    data: {
      newEmail,
      before: { email: target.email, emailVerified: target.emailVerified },
      actor: { sub: actor.sub, email: actor.email },
      requestId: actor.requestId,
    } satisfies StaffEmailChangeNote,
    now: services.clock.now(),
  });
  try {
    await callCognitoForPendingChange(services.db, pendingId, () =>
      services.identity.updateAttributes(targetSub, { email: newEmail, email_verified: "true" }),
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === "usernameExists") throw new DomainError("emailUnavailable");
    throw error;
  }
  const recorded = await services.db.transaction(async (tx) => {
    await lockMember(tx, targetSub);
    // Gone: the repair found the change at Cognito and recorded it, audit entry included.
    if (!(await claimPendingCognitoChange(tx, pendingId))) return null;
    return recordStaffEmailChange(tx, { targetSub, newEmail, now: services.clock.now() });
  });
  const voidedLinks = recorded ?? 0;

  const locale = mailLocaleOf(target);
  const [toOld, toNew] = await Promise.allSettled(
    [target.email, newEmail].map((to) =>
      services.mailer.sendStaffEmailChangeNotice({ to, locale, texts: mailTexts, oldEmail: target.email, newEmail }),
    ),
  );
  const notified = { oldAddress: toOld?.status === "fulfilled", newAddress: toNew?.status === "fulfilled" };

  if (recorded !== null) {
    await audit(services, actor, {
      action: "user.email-change",
      targetSub,
      before: { email: target.email, emailVerified: target.emailVerified },
      after: { email: newEmail, emailVerified: true, voidedLinks, notified },
    });
  }
  return { oldEmail: target.email, newEmail, voidedLinks, notified };
}

/** What a staff e-mail change notes before Cognito is asked (pending-cognito-changes.server.ts). */
const StaffEmailChangeNoteSchema = z.object({
  newEmail: z.string(),
  before: z.object({ email: z.string(), emailVerified: z.boolean() }),
  actor: z.object({ sub: z.string(), email: z.string() }),
  requestId: z.string(),
});
type StaffEmailChangeNote = z.infer<typeof StaffEmailChangeNoteSchema>;

/**
 * Our record of a staff e-mail change, in its transaction (under the member's lock): the sessions carry the new
 * address, `member.email_changed` is announced, and the member's own pending change links are voided (one of them
 * would otherwise switch the address back). Answers how many links were voided.
 */
async function recordStaffEmailChange(
  tx: Database,
  input: { targetSub: string; newEmail: string; now: Date },
): Promise<number> {
  await tx.update(memberSessions).set({ email: input.newEmail }).where(eq(memberSessions.sub, input.targetSub));
  await recordAccountEvent(tx, {
    type: "member.email_changed",
    sub: input.targetSub,
    occurredAt: input.now,
    data: { email: input.newEmail },
  });
  const voided = await tx
    .delete(emailChangeTokens)
    .where(and(eq(emailChangeTokens.sub, input.targetSub), isNull(emailChangeTokens.usedAt)))
    .returning({ tokenHash: emailChangeTokens.tokenHash });
  return voided.length;
}

/** For the repair: whether Cognito has the member at the noted new address (the change happened). */
export async function staffEmailChangeHappened(
  identity: Pick<StaffServices["identity"], "findUser">,
  change: PendingCognitoChange,
): Promise<boolean> {
  const { newEmail } = StaffEmailChangeNoteSchema.parse(change.data);
  const user = change.sub ? await identity.findUser(change.sub) : null;
  return user?.email.toLowerCase() === newEmail;
}

/**
 * For the repair, in the transaction that claimed the note: the staff e-mail change Cognito made, recorded as the
 * change would have, with its audit entry (the staff member and request that asked for it). Neither address was
 * told: the notices went with the process that died.
 */
export async function finishStaffEmailChange(tx: Database, change: PendingCognitoChange, now: Date): Promise<void> {
  const note = StaffEmailChangeNoteSchema.parse(change.data);
  const targetSub = change.sub!;
  await lockMember(tx, targetSub);
  const voidedLinks = await recordStaffEmailChange(tx, { targetSub, newEmail: note.newEmail, now });
  await recordStaffAction(tx, {
    actor: note.actor,
    requestId: note.requestId,
    action: "user.email-change",
    targetSub,
    before: note.before,
    after: {
      email: note.newEmail,
      emailVerified: true,
      voidedLinks,
      notified: { oldAddress: false, newAddress: false },
    },
  });
}

export interface StaffSignOutResult {
  endedSessions: number;
  /** Whether Cognito's global sign-out went through (if not, the ended sessions' refresh tokens were revoked one by one). */
  globalSignOut: boolean;
}

/**
 * Ends every session of the member, pending sign-ins included, and signs them out everywhere at Cognito, which also
 * revokes sign-ins no session records (a sibling service's); the member API refuses every token issued up to now,
 * this second's included. This is signOutEverywhere (app/domain/sessions/session-ending.server.ts) keeping no
 * session: the member's browsers are signed out on their next request.
 */
export async function endMemberSessions(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
): Promise<StaffSignOutResult> {
  await requireTarget(services, actor, targetSub, "user.sessions-end");
  const liveSessions = await countLiveSessions(services, targetSub);
  const { endedSessions, globalSignOut } = await signOutEverywhere(services, {
    sub: targetSub,
    keepSessionId: null,
    reason: "staff-ended-sessions",
    includeThisSecond: true,
  });
  await audit(services, actor, {
    action: "user.sessions-end",
    targetSub,
    before: { liveSessions },
    after: { liveSessions: 0, endedSessions, globalSignOut },
  });
  return { endedSessions, globalSignOut };
}

/**
 * Disables the account at Cognito (no more sign-ins or refreshes), then ends every session and signs the member out
 * everywhere. Disabling first means no sign-in can start between the two. The member API refuses
 * the member's tokens from then on, also ones no session records (tokenStanding reads the directory's `enabled`).
 */
export async function disableMember(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
): Promise<StaffSignOutResult> {
  const target = await requireTarget(services, actor, targetSub, "user.disable");
  const liveSessions = await countLiveSessions(services, targetSub);
  await services.identity.disableUser(targetSub);
  const { endedSessions, globalSignOut } = await signOutEverywhere(services, {
    sub: targetSub,
    keepSessionId: null,
    reason: "staff-disabled",
    includeThisSecond: true,
    alongside: (tx) =>
      recordAccountEvent(tx, { type: "member.disabled", sub: targetSub, occurredAt: services.clock.now(), data: {} }),
  });
  await audit(services, actor, {
    action: "user.disable",
    targetSub,
    before: { enabled: target.enabled, liveSessions },
    after: { enabled: false, liveSessions: 0, endedSessions, globalSignOut },
  });
  return { endedSessions, globalSignOut };
}

/** Lets the member sign in again. Sessions ended by the disable stay ended: the member signs in afresh. */
export async function enableMember(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
): Promise<{ enabled: true }> {
  const target = await requireTarget(services, actor, targetSub, "user.enable");
  await services.identity.enableUser(targetSub);
  await services.db.transaction(async (tx) => {
    await audit({ ...services, db: tx }, actor, {
      action: "user.enable",
      targetSub,
      before: { enabled: target.enabled },
      after: { enabled: true },
    });
    await recordAccountEvent(tx, {
      type: "member.enabled",
      sub: targetSub,
      occurredAt: services.clock.now(),
      data: {},
    });
  });
  return { enabled: true };
}

/**
 * Turns off the member's 2-step verification (a lost phone, the member asking support): at Cognito (preference off,
 * secret deleted), then our flag and recovery codes; the member is mailed and the audit event says whether it was on.
 * Cognito is told even when our flag says off, so a member whose flag and Cognito disagree can still be helped.
 */
export async function turnOffMemberTwoStep(
  services: StaffServices,
  actor: StaffActionActor,
  targetSub: string,
): Promise<{ twoStepVerification: false; wasOn: boolean }> {
  const target = await requireTarget(services, actor, targetSub, "user.two-step-off");
  const before = await twoStepStatusOf(services.db, targetSub);
  const wasOn = await turnOffTwoStep(services, {
    by: "staff",
    sub: targetSub,
    email: target.email,
    locale: mailLocaleOf(target),
  });
  await audit(services, actor, {
    action: "user.two-step-off",
    targetSub,
    before: { twoStepVerification: before.enabled, recoveryCodesLeft: before.recoveryCodesLeft },
    after: { twoStepVerification: false, recoveryCodesLeft: 0 },
  });
  return { twoStepVerification: false, wasOn };
}
