import { and, desc, eq, inArray, isNull, lt, or } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~db/client.server";
import { pendingCognitoChanges } from "~db/schema";
import { LOCALES } from "~/i18n/locales";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { recordAccountEvent } from "../events/account-events.server";
import { queueNotice } from "../mail/mail-outbox.server";
import { signOutEverywhere } from "../sessions/session-ending.server";
import { matchesPasswordVerifier } from "./legacy-password.server";
import {
  PENDING_COGNITO_CHANGE_SETTLE_MS,
  PENDING_PASSWORD_KINDS,
  type PendingCognitoChange,
} from "./pending-cognito-changes.server";

/**
 * New passwords Cognito may or may not have set: a change or a reset whose answer was lost and could not be checked
 * ("passwordChangeUnconfirmed", "passwordResetUnconfirmed"), or any of the three (an invited member's first password
 * too) cut off by the process dying before our record. Cognito cannot say afterwards whether a password changed, so
 * the note keeps a bcrypt verifier of the new one, and the member's next password sign-in tells: Cognito accepting a
 * password that matches it proves the change, one that does not proves it never happened. A passkey sign-in types no
 * password and tells nothing.
 */

export type UnconfirmedPasswordDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/** What a password change or reset notes beside the verifier: what its record and mail would have said. */
const PasswordNoteSchema = z.object({ clientIp: z.string(), locale: z.enum(LOCALES) });
export type PasswordNote = z.infer<typeof PasswordNoteSchema>;

/** The member's notes of a new password: by sub, or by address for a first password noted before Cognito named them. */
function passwordNotesOf(member: { sub: string; email: string }) {
  return and(
    inArray(pendingCognitoChanges.kind, [...PENDING_PASSWORD_KINDS]),
    or(
      eq(pendingCognitoChanges.sub, member.sub),
      and(isNull(pendingCognitoChanges.sub), eq(pendingCognitoChanges.email, member.email.trim().toLowerCase())),
    ),
  )!;
}

/**
 * In the transaction that records a new password: takes its note away (false: settled already, record nothing), and
 * with it the member's older password notes, which this change supersedes: whichever of them Cognito made, the
 * member's password changed since, and this record says so (an invited member's retry of the same first password is
 * announced once).
 */
async function claimPasswordNote(
  tx: Database,
  input: { pendingId: string; sub: string; email: string },
): Promise<boolean> {
  const [claimed] = await tx
    .delete(pendingCognitoChanges)
    .where(eq(pendingCognitoChanges.id, input.pendingId))
    .returning({ createdAt: pendingCognitoChanges.createdAt });
  if (!claimed) return false;
  await tx
    .delete(pendingCognitoChanges)
    .where(and(passwordNotesOf(input), lt(pendingCognitoChanges.createdAt, claimed.createdAt)));
  return true;
}

/** Whether a failed call left the password unconfirmed: only then the note stays (for the next sign-in). */
export function passwordLeftUnconfirmed(error: unknown): boolean {
  return error instanceof DomainError && ["passwordChangeUnconfirmed", "passwordResetUnconfirmed"].includes(error.code);
}

/**
 * The change or reset recorded as it would have been, once known to have happened: every session of the member ends
 * and Cognito signs them out everywhere, the security record and `member.password_changed` in that transaction, and
 * the mail. Answers whether it claimed the note (false: settled already, nothing done).
 */
export async function recordPasswordCredentialChange(
  deps: UnconfirmedPasswordDependencies,
  input: {
    pendingId: string;
    sub: string;
    email: string;
    kind: "password-change" | "password-reset";
    /** The sign-in this browser keeps (the change's own), or none. */
    keepSessionId: string | null;
    note: PasswordNote;
  },
): Promise<{ endedSessions: number; globalSignOut: boolean; claimed: boolean }> {
  const changed = input.kind === "password-change";
  const result = await signOutEverywhere(deps, {
    sub: input.sub,
    keepSessionId: input.keepSessionId,
    reason: changed ? "password-changed" : "password-reset",
    record: { kind: changed ? "password-changed" : "password-reset", clientIp: input.note.clientIp },
    claim: (tx) => claimPasswordNote(tx, input),
  });
  if (!result.claimed) return result;
  const now = deps.clock.now();
  await queueNotice(deps.db, {
    kind: changed ? "passwordChanged" : "passwordReset",
    details: { changedAt: now.toISOString() },
    recipient: input.email,
    sub: input.sub,
    requestLocale: input.note.locale,
    now,
  });
  return result;
}

/** An invited member's first password, announced in `tx` once its note is claimed; false: settled already. */
export async function recordFirstPassword(
  tx: Database,
  input: { pendingId: string; sub: string; email: string; now: Date },
): Promise<boolean> {
  if (!(await claimPasswordNote(tx, input))) return false;
  await recordAccountEvent(tx, {
    type: "member.password_changed",
    sub: input.sub,
    occurredAt: input.now,
    data: { via: "first-sign-in" },
  });
  return true;
}

/**
 * A password sign-in that Cognito accepted settles the member's unconfirmed new passwords: the newest whose verifier
 * `password` matches happened (recorded now, as its flow would have; a change or reset also ends every session and
 * signs out everywhere at Cognito), and every note past PENDING_COGNITO_CHANGE_SETTLE_MS that does not match never
 * did (dropped, nothing announced). A younger one may belong to a change still under way in another browser, which
 * Cognito may yet make: it is left to its flow, or to a later sign-in. Answers whether a change or reset was recorded:
 * the sign-in's own tokens went with the global sign-out, so the caller signs in again.
 */
export async function settleUnconfirmedPasswords(
  deps: UnconfirmedPasswordDependencies,
  member: { sub: string; email: string; password: string },
): Promise<boolean> {
  const notes = await deps.db
    .select()
    .from(pendingCognitoChanges)
    .where(passwordNotesOf(member))
    .orderBy(desc(pendingCognitoChanges.createdAt));
  if (notes.length === 0) return false;
  let happened: PendingCognitoChange | null = null;
  for (const note of notes) {
    if (!happened && note.passwordVerifier && (await matchesPasswordVerifier(member.password, note.passwordVerifier))) {
      happened = note;
    }
  }
  const settledBefore = deps.clock.now().getTime() - PENDING_COGNITO_CHANGE_SETTLE_MS;
  const neverHappened = notes
    .filter((note) => note !== happened && note.createdAt.getTime() <= settledBefore)
    .map((note) => note.id);
  if (neverHappened.length > 0) {
    await deps.db.delete(pendingCognitoChanges).where(inArray(pendingCognitoChanges.id, neverHappened));
  }
  if (!happened) return false;
  if (happened.kind === "first-password") {
    const input = { pendingId: happened.id, sub: member.sub, email: member.email, now: deps.clock.now() };
    await deps.db.transaction((tx) => recordFirstPassword(tx, input));
    return false;
  }
  const { claimed } = await recordPasswordCredentialChange(deps, {
    pendingId: happened.id,
    sub: member.sub,
    email: member.email,
    kind: happened.kind === "password-change" ? "password-change" : "password-reset",
    keepSessionId: null,
    note: PasswordNoteSchema.parse(happened.data),
  });
  return claimed;
}

/**
 * The repair's part, once a note has outlived any request: the member's sessions end ("password-unconfirmed") and
 * Cognito signs them out everywhere, once per note, so the next sign-in (which settles it) comes soon, and nothing
 * signed in before the uncertain change outlives it. A first password has nothing to end: no one signed in before
 * it. Answers whether it ended them now.
 */
export async function endSessionsBeforeUnconfirmedPassword(
  deps: UnconfirmedPasswordDependencies,
  change: PendingCognitoChange,
): Promise<boolean> {
  if (!change.sub) return false;
  const { claimed } = await signOutEverywhere(deps, {
    sub: change.sub,
    keepSessionId: null,
    reason: "password-unconfirmed",
    claim: async (tx) => {
      const marked = await tx
        .update(pendingCognitoChanges)
        .set({ sessionsEndedAt: deps.clock.now() })
        .where(and(eq(pendingCognitoChanges.id, change.id), isNull(pendingCognitoChanges.sessionsEndedAt)))
        .returning({ id: pendingCognitoChanges.id });
      return marked.length > 0;
    },
  });
  return claimed;
}
