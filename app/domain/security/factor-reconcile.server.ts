import { and, asc, eq, gt, inArray, isNull, lt, notInArray, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberDirectory, memberPasskeys, scheduledJobTurns, twoStepVerifications, unknownPasskeys } from "~db/schema";
import type { Locale } from "~/i18n/locales";
import { decodeJwt } from "jose";
import type { PasswordSignIn, ServerToken } from "~/integrations/cognito/member-flows.server";
import { logger } from "~/integrations/logger.server";
import { countJobRun } from "~/integrations/metrics.server";
import type { AppServices, Clock } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { createRequestPacer } from "../directory/directory-reconcile.server";
import { recordPasskeysChanged } from "../events/account-events.server";
import { scheduleRepeating } from "../jobs/repeating-job.server";
import { claimScheduledTurn } from "../jobs/scheduled-turn.server";
import { queueMail, ringMailOutbox } from "../mail/mail-outbox.server";
import { deleteRecoveryCodes } from "./recovery-codes.server";
import { recordSecurityEvent } from "./security-record.server";
import { recordTwoStepChanged, twoStepMemberByUsername } from "./two-step-verification.server";

/**
 * Our record of a member's second factors is the truth, and Cognito is kept to it (docs/security.md, "Our record of
 * second factors is the truth"). Cognito holds the factors themselves; a factor it holds that our record does not know
 * was set up around our pages (with a token of Cognito's self-service scope: none we hand out carries it since the
 * pool's pre token generation trigger, but tokens issued before did), and one our record has that Cognito lost was
 * switched off around them. Each is put right, the security record says so and the member is mailed:
 * - an authenticator app we did not set up: removed at once (AdminSetUserMFAPreference, AdminDeleteSoftwareToken);
 * - an authenticator switched off while our record says on: switched on again (or, if Cognito lost its secret, our
 *   record follows and the member is told to set it up again);
 * - a passkey we did not add: our sign-in refuses it at once; it is removed at Cognito with the member's server
 *   token, which only a password typed on our pages makes (Cognito offers no administrator operation on passkeys),
 *   so until then its removal is owed in `unknown_passkeys`.
 * Found at sign-in (Cognito's challenge tells us), after a password sign-in or the password step (the server token
 * lists the passkeys), and by the reconcile job below for members who do neither.
 */
export type FactorDependencies = Pick<AppServices, "db" | "identity" | "clock">;

interface Member {
  sub: string;
  email: string;
  /** The page's language, for a member who chose none (the mail's). */
  locale: Locale;
}

async function notice(
  tx: Database,
  member: Member,
  input:
    | { kind: "twoStepChanged"; change: "unknownRemoved" | "switchedOnAgain" | "disabled"; now: Date }
    | { kind: "passkeyChanged"; change: "unknownFound" | "unknownRemoved"; now: Date },
): Promise<void> {
  const common = { recipient: member.email, sub: member.sub, requestLocale: member.locale, now: input.now };
  const changedAt = input.now.toISOString();
  if (input.kind === "twoStepChanged") {
    await queueMail(tx, {
      ...common,
      kind: "twoStepChanged",
      details: { change: input.change, changedAt, recoveryCodesLeft: "0" },
    });
  } else {
    await queueMail(tx, { ...common, kind: "passkeyChanged", details: { change: input.change, name: "", changedAt } });
  }
}

/**
 * Cognito asked for an authenticator app our record does not know (at a password sign-in, or as AdminGetUser shows):
 * it is switched off and deleted at Cognito, recorded and mailed. The sign-in then goes on with the password alone,
 * as our record says it should.
 */
export async function removeUnknownAuthenticator(deps: FactorDependencies, member: Member): Promise<void> {
  await deps.identity.setSoftwareTokenPreferenceOf({ username: member.sub, enabled: false });
  await deps.identity.deleteSoftwareToken(member.sub).catch((error: unknown) => {
    if (!(error instanceof DomainError && error.code === "softwareTokenNotFound")) throw error;
  });
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await recordSecurityEvent(tx, { sub: member.sub, kind: "unknown-second-factor-removed", occurredAt: now });
    await notice(tx, member, { kind: "twoStepChanged", change: "unknownRemoved", now });
  });
  ringMailOutbox();
}

/**
 * Cognito signed a member in with the password alone though our record says they use the authenticator app (and no
 * recovery code's sign-in has it off for its instant): switched on again, recorded and mailed, so the next sign-in
 * asks for the code. The app counts as turned on from now (`enabled_at`): the admin API, which takes only sign-ins
 * made after that time, refuses every token signed in while it was off. If Cognito no longer has the app's secret, it
 * cannot be switched on: our record follows (2-step verification off, recovery codes void) and the member is told to
 * set it up again.
 */
export async function restoreAuthenticator(
  deps: Pick<FactorDependencies, "db" | "clock"> & {
    identity: Pick<FactorDependencies["identity"], "setSoftwareTokenPreferenceOf">;
  },
  member: Member,
): Promise<"restored" | "lost"> {
  let outcome: "restored" | "lost" = "restored";
  try {
    await deps.identity.setSoftwareTokenPreferenceOf({ username: member.sub, enabled: true });
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "softwareTokenNotFound")) throw error;
    outcome = "lost";
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    if (outcome === "lost") {
      const removed = await tx
        .delete(twoStepVerifications)
        .where(eq(twoStepVerifications.sub, member.sub))
        .returning({ sub: twoStepVerifications.sub });
      await deleteRecoveryCodes(tx, member.sub);
      if (removed.length > 0) await recordTwoStepChanged(tx, { sub: member.sub, on: false, now });
    } else {
      await tx.update(twoStepVerifications).set({ enabledAt: now }).where(eq(twoStepVerifications.sub, member.sub));
    }
    const kind = outcome === "restored" ? "second-factor-restored" : "second-factor-removed";
    await recordSecurityEvent(tx, { sub: member.sub, kind, occurredAt: now });
    const change = outcome === "restored" ? "switchedOnAgain" : "disabled";
    await notice(tx, member, { kind: "twoStepChanged", change, now });
  });
  ringMailOutbox();
  return outcome;
}

/**
 * Cognito's answer to a password (the members' or the staff sign-in), held to our record of the member's second
 * factor before anyone goes on:
 * - Cognito asks for an authenticator code our record does not know of: that authenticator was set up around our
 *   pages; it is removed (recorded, mailed) and the password asked of Cognito again, which now signs in alone, as our
 *   record says it should.
 * - Cognito gave tokens for the password alone, yet our record says the member uses the app: it was switched off
 *   around our pages. The tokens are dropped (refresh token revoked), the app switched on again (recorded, mailed)
 *   and the password asked again, whose code challenge then comes. During a recovery code's sign-in, which switches it
 *   off for an instant itself, the sign-in is refused as unavailable instead (the member tries again a moment later).
 */
export async function keepSignInToOurRecord(
  deps: FactorDependencies,
  input: {
    answer: PasswordSignIn;
    email: string;
    locale: Locale;
    revoke: (refreshToken: string) => Promise<void>;
    signInAgain: () => Promise<PasswordSignIn>;
  },
): Promise<PasswordSignIn> {
  const { answer } = input;
  if (answer.kind === "softwareTokenRequired") {
    if (await twoStepMemberByUsername(deps.db, answer.username)) return answer;
    const user = await deps.identity.getUser(answer.username);
    await removeUnknownAuthenticator(deps, { sub: user.sub, email: user.email, locale: input.locale });
    return input.signInAgain();
  }
  if (answer.kind !== "tokens") return answer;
  const claims = decodeJwt(answer.tokens.idToken);
  const sub = String(claims.sub);
  const inRecord = await authenticatorOnInRecord(deps.db, sub);
  if (inRecord === false) return answer;
  if (answer.tokens.refreshToken) await input.revoke(answer.tokens.refreshToken).catch(() => undefined);
  if (inRecord === "switching") {
    logger.warn("a password sign-in met the member's TOTP off for a recovery code's sign-in; refused, try again");
    await deps.identity.setSoftwareTokenPreferenceOf({ username: sub, enabled: true });
    throw new DomainError("unavailable");
  }
  const email = typeof claims.email === "string" ? claims.email : input.email;
  // Restored, Cognito now asks for the code; lost at Cognito (our record followed), the password signs in alone.
  await restoreAuthenticator(deps, { sub, email, locale: input.locale });
  return input.signInAgain();
}

/** Whether our record says the member uses the authenticator app now (not off for a recovery code's instant). */
async function authenticatorOnInRecord(db: Database, sub: string): Promise<boolean | "switching"> {
  const [row] = await db
    .select({ totpOffSince: twoStepVerifications.totpOffSince })
    .from(twoStepVerifications)
    .where(eq(twoStepVerifications.sub, sub));
  if (!row) return false;
  return row.totpOffSince ? "switching" : true;
}

/**
 * The staff group check's look at the staff (app/domain/directory/staff-group-check.server.ts): each staff member whose
 * record says the authenticator app is on is read from Cognito (AdminGetUser), and one found without it is restored
 * (restoreAuthenticator), so the admin API cannot be reached with a sign-in made while the second factor was off
 * for longer than one check's interval. Staff are few; a failure is logged and the next check tries again.
 */
export async function keepStaffAuthenticatorsOn(
  deps: Pick<FactorDependencies, "db" | "clock"> & {
    identity: Pick<FactorDependencies["identity"], "getUser" | "setSoftwareTokenPreferenceOf">;
  },
  staff: { sub: string; email: string; locale: string | null }[],
): Promise<number> {
  if (staff.length === 0) return 0;
  const withApp = await deps.db
    .select({ sub: twoStepVerifications.sub })
    .from(twoStepVerifications)
    .where(
      and(
        inArray(
          twoStepVerifications.sub,
          staff.map((member) => member.sub),
        ),
        isNull(twoStepVerifications.totpOffSince),
      ),
    );
  let restored = 0;
  for (const { sub } of withApp) {
    const member = staff.find((candidate) => candidate.sub === sub)!;
    try {
      const user = await deps.identity.getUser(sub);
      if (user.mfaMethods.includes("SOFTWARE_TOKEN_MFA")) continue;
      const locale = member.locale === "en" ? "en" : "ja";
      await restoreAuthenticator(deps, { sub, email: member.email, locale });
      restored += 1;
    } catch (error) {
      logger.warn({ err: error }, "could not check a staff member's authenticator at Cognito");
    }
  }
  return restored;
}

/**
 * Passkeys Cognito holds that our list does not: each is noted as owed for removal and, the first time, recorded and
 * mailed. Answers the ids not known before.
 */
export async function noteUnknownPasskeys(
  deps: FactorDependencies,
  member: Member,
  credentialIds: string[],
): Promise<string[]> {
  const unknown = await idsNotInOurList(deps.db, member.sub, credentialIds);
  if (unknown.length === 0) return [];
  const now = deps.clock.now();
  const noted = await deps.db.transaction(async (tx) => {
    const inserted = await tx
      .insert(unknownPasskeys)
      .values(unknown.map((credentialId) => ({ credentialId, sub: member.sub, foundAt: now })))
      .onConflictDoNothing()
      .returning({ credentialId: unknownPasskeys.credentialId });
    for (const _ of inserted) {
      await recordSecurityEvent(tx, { sub: member.sub, kind: "unknown-passkey-found", occurredAt: now });
    }
    if (inserted.length > 0) await notice(tx, member, { kind: "passkeyChanged", change: "unknownFound", now });
    return inserted.map((row) => row.credentialId);
  });
  if (noted.length > 0) ringMailOutbox();
  return noted;
}

async function idsNotInOurList(db: Database, sub: string, credentialIds: string[]): Promise<string[]> {
  if (credentialIds.length === 0) return [];
  const ours = await db
    .select({ credentialId: memberPasskeys.credentialId })
    .from(memberPasskeys)
    .where(and(eq(memberPasskeys.sub, sub), inArray(memberPasskeys.credentialId, credentialIds)));
  const known = new Set(ours.map((row) => row.credentialId));
  return [...new Set(credentialIds)].filter((id) => !known.has(id));
}

/**
 * How long a passkey in our list may be missing at Cognito before it leaves the list: adding one lists it first and
 * asks Cognito after (addPasskey), which takes seconds, not minutes.
 */
const PASSKEY_BEING_ADDED_MS = 5 * 60 * 1000;

/**
 * With the member's server token, Cognito's list of their passkeys is the whole truth: every passkey there that our
 * list lacks is deleted at Cognito, recorded and mailed (an owed removal is marked done); every one in our list that
 * Cognito no longer holds, and that is not being added, leaves our list (it cannot sign in anyway). Answers how many
 * were removed at Cognito.
 */
export async function reconcilePasskeys(
  deps: FactorDependencies,
  member: Member & { token: ServerToken },
): Promise<number> {
  const listedAt = deps.clock.now();
  const atCognito = await deps.identity.listPasskeyCredentialIds(member.token);
  const unknown = await idsNotInOurList(deps.db, member.sub, atCognito);
  for (const credentialId of unknown) {
    await deps.identity.deletePasskey({ token: member.token, credentialId }).catch((error: unknown) => {
      if (!(error instanceof DomainError && error.code === "passkeyNotFound")) throw error;
    });
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    for (const credentialId of unknown) {
      await tx
        .insert(unknownPasskeys)
        .values({ credentialId, sub: member.sub, foundAt: now, removedAt: now })
        .onConflictDoUpdate({ target: unknownPasskeys.credentialId, set: { removedAt: now } });
      await recordSecurityEvent(tx, { sub: member.sub, kind: "unknown-passkey-removed", occurredAt: now });
    }
    if (unknown.length > 0) await notice(tx, member, { kind: "passkeyChanged", change: "unknownRemoved", now });
    // Owed removals of passkeys already gone at Cognito (deleted elsewhere since) are done too.
    await tx
      .update(unknownPasskeys)
      .set({ removedAt: now })
      .where(
        and(
          eq(unknownPasskeys.sub, member.sub),
          isNull(unknownPasskeys.removedAt),
          atCognito.length > 0 ? notInArray(unknownPasskeys.credentialId, atCognito) : sql`true`,
        ),
      );
    const stale = await tx
      .delete(memberPasskeys)
      .where(
        and(
          eq(memberPasskeys.sub, member.sub),
          lt(memberPasskeys.createdAt, new Date(listedAt.getTime() - PASSKEY_BEING_ADDED_MS)),
          atCognito.length > 0 ? notInArray(memberPasskeys.credentialId, atCognito) : sql`true`,
        ),
      )
      .returning({ credentialId: memberPasskeys.credentialId });
    if (stale.length > 0)
      logger.info({ count: stale.length }, "passkeys Cognito no longer holds left the member's list");
    if (unknown.length > 0 || stale.length > 0) {
      await recordPasskeysChanged(tx, { sub: member.sub, change: "removed", now });
    }
  });
  if (unknown.length > 0) ringMailOutbox();
  return unknown.length;
}

/**
 * After a password typed on our pages made a server token (a password sign-in without 2-step verification, or the
 * password step): the member's passkeys are reconciled with it. Off the member's request (its answer does not wait
 * for two more Cognito calls); a failure is logged and left to the next sign-in or the reconcile job.
 */
export function reconcilePasskeysLater(deps: FactorDependencies, member: Member & { token: ServerToken }): void {
  void reconcilePasskeys(deps, member).catch((error: unknown) =>
    logger.warn({ err: error }, "could not reconcile the member's passkeys with Cognito; the next chance will"),
  );
}

/**
 * The reconcile job's look at one member, who may never sign in again: the authenticator as AdminGetUser reports it
 * against our record, and the passkeys Cognito's passkey sign-in would offer (AdminInitiateAuth USER_AUTH with
 * WEB_AUTHN preferred names them in its request options, and costs nothing when unanswered) against our list.
 */
export async function checkMemberFactors(
  deps: FactorDependencies,
  member: Member,
  paced: <T>(request: () => Promise<T>) => Promise<T> = (request) => request(),
): Promise<void> {
  const user = await paced(() => deps.identity.findUser(member.sub));
  if (!user || !user.enabled) return;
  const atCognito = user.mfaMethods.includes("SOFTWARE_TOKEN_MFA");
  const inRecord = await authenticatorOnInRecord(deps.db, member.sub);
  if (atCognito && inRecord === false) await removeUnknownAuthenticator(deps, member);
  if (!atCognito && inRecord === true) await restoreAuthenticator(deps, member);
  await noteUnknownPasskeys(deps, member, await passkeysOfferedFor(deps, user.email, paced));
}

/**
 * The credential ids of the passkeys Cognito holds for an address, as its passkey sign-in offers them
 * (AdminInitiateAuth USER_AUTH with WEB_AUTHN preferred names them in its request options, and costs nothing when
 * unanswered); none for an address Cognito does not know or cannot sign in.
 */
export async function passkeysOfferedFor(
  deps: Pick<FactorDependencies, "identity">,
  email: string,
  paced: <T>(request: () => Promise<T>) => Promise<T> = (request) => request(),
): Promise<string[]> {
  const challenge = await paced(() => deps.identity.beginPasskeySignIn(email)).catch((error: unknown) => {
    if (
      error instanceof DomainError &&
      ["userNotFound", "invalidCredentials", "userNotConfirmed"].includes(error.code)
    ) {
      return { kind: "noPasskey" as const };
    }
    throw error;
  });
  return challenge.kind === "webAuthn" ? offeredCredentialIds(challenge.requestOptionsJson) : [];
}

/** The credential ids in a WEB_AUTHN challenge's request options (`allowCredentials`). */
export function offeredCredentialIds(requestOptionsJson: string): string[] {
  try {
    const options = JSON.parse(requestOptionsJson) as { allowCredentials?: { id?: unknown }[] };
    return (options.allowCredentials ?? []).flatMap((credential) =>
      typeof credential.id === "string" ? [credential.id] : [],
    );
  } catch {
    return [];
  }
}

/** Each member's check costs two Cognito calls. */
const CALLS_PER_MEMBER = 2;
/** A run may use at most half its interval, so that runs never overlap on a slow day. */
const RUN_SHARE_OF_INTERVAL = 0.5;

/** How many members one run of the job checks at `requestsPerSecond` within RUN_SHARE_OF_INTERVAL of its interval. */
export function membersPerRun(options: { intervalMs: number; requestsPerSecond: number }): number {
  const seconds = (options.intervalMs / 1000) * RUN_SHARE_OF_INTERVAL;
  return Math.max(1, Math.floor((seconds * options.requestsPerSecond) / CALLS_PER_MEMBER));
}

/**
 * One run of the reconcile job: the next members of the directory after where the last run stopped (by sub; from the
 * start again after the last), each checked by checkMemberFactors at `requestsPerSecond`. The place is kept with the
 * job's turn (scheduled_job_turns.cursor), so every member is looked at in turn, across restarts and instances.
 * Cancelled and disabled members are skipped (they cannot sign in). Answers how many were checked.
 */
export async function reconcileFactors(
  deps: FactorDependencies,
  options: { members: number; requestsPerSecond: number; locale?: Locale },
): Promise<number> {
  const [turn] = await deps.db
    .select({ cursor: scheduledJobTurns.cursor })
    .from(scheduledJobTurns)
    .where(eq(scheduledJobTurns.job, "factors"));
  const after = turn?.cursor ?? null;
  const members = await deps.db
    .select({ sub: memberDirectory.sub, email: memberDirectory.email, locale: memberDirectory.locale })
    .from(memberDirectory)
    .where(
      and(
        after ? gt(memberDirectory.sub, after) : undefined,
        eq(memberDirectory.enabled, true),
        isNull(memberDirectory.cancelledAt),
      ),
    )
    .orderBy(asc(memberDirectory.sub))
    .limit(options.members);
  const paced = createRequestPacer(options.requestsPerSecond);
  for (const member of members) {
    const locale = member.locale === "en" ? "en" : (options.locale ?? "ja");
    await checkMemberFactors(deps, { sub: member.sub, email: member.email, locale }, paced).catch((error: unknown) =>
      logger.warn({ err: error }, "could not check one member's second factors; the next round comes back to them"),
    );
  }
  const cursor = members.length < options.members ? null : (members.at(-1)?.sub ?? null);
  await deps.db.update(scheduledJobTurns).set({ cursor }).where(eq(scheduledJobTurns.job, "factors"));
  return members.length;
}

/** How long after start the job first runs: after the server has settled, like the other jobs. */
const FACTOR_RECONCILE_FIRST_RUN_DELAY_MS = 5 * 60 * 1000;

/**
 * The reconcile job in the server process, every `intervalMs` once per cluster (claimScheduledTurn), each run checking
 * membersPerRun members. Returns a stop function.
 */
export function scheduleFactorReconcile(
  deps: FactorDependencies & { clock: Clock },
  options: { intervalMs: number; requestsPerSecond: number },
): () => void {
  return scheduleRepeating(
    async () => {
      try {
        if (!(await claimScheduledTurn(deps.db, "factors", options.intervalMs))) {
          return countJobRun("factors", "not-due", false);
        }
        const checked = await reconcileFactors(deps, { members: membersPerRun(options), ...options });
        countJobRun("factors", "finished", true);
        logger.info({ checked }, "members' second factors checked against Cognito");
      } catch (error) {
        countJobRun("factors", "failed", false);
        logger.warn({ err: error }, "the second-factor reconcile failed; it runs again at the next interval");
      }
    },
    {
      firstRunDelayMs: Math.min(FACTOR_RECONCILE_FIRST_RUN_DELAY_MS, options.intervalMs),
      intervalMs: options.intervalMs,
    },
  );
}
