import { eq } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { pendingCognitoChanges } from "~db/schema";
import { COGNITO_CALL_DEADLINE_MS } from "~/integrations/cognito/cognito-calls.server";
import { DomainError, refusedOnCognitoRetry } from "../domain-error.server";
import { hashPasswordVerifier } from "./legacy-password.server";

/**
 * The flows where Cognito changes before our record does (app/domain/README.md, "Changes noted before Cognito"). Each
 * notes its change here, committed, before the Cognito call; the transaction that records the change deletes the note
 * (claimPendingCognitoChange), so the note and the record never both exist after a commit. A note left behind is the
 * repair's (cognito-change-repair.server.ts), which asks Cognito what is true and records what happened, once.
 */
export const PENDING_COGNITO_CHANGE_KINDS = [
  "password-change",
  "password-reset",
  // An invited member's own first password (completeFirstSignIn).
  "first-password",
  "staff-email-change",
  "passkey-added",
  "legacy-migration",
] as const;
export type PendingCognitoChangeKind = (typeof PENDING_COGNITO_CHANGE_KINDS)[number];

/** The kinds Cognito cannot confirm afterwards: a new password, told only by the member's next password sign-in. */
export const PENDING_PASSWORD_KINDS: readonly PendingCognitoChangeKind[] = [
  "password-change",
  "password-reset",
  "first-password",
];

export type PendingCognitoChange = typeof pendingCognitoChanges.$inferSelect;

/**
 * The most Cognito calls a flow makes between noting its change and recording it: the legacy migration's (the
 * lookup, deleting an unconfirmed sign-up, AdminCreateUser, the permanent password, and deleting the user again when
 * a step fails). The others make one or two (a password change and the sign-in that checks an unclear answer).
 */
const MOST_COGNITO_CALLS_WHILE_NOTED = 5;

/**
 * How old a note must be before the repair, or a sign-in with another password, takes it as settled: longer than any
 * request holds one, or either could find a change not made yet and drop the note of a change about to happen. Each
 * Cognito call ends within COGNITO_CALL_DEADLINE_MS, the SDK's retries included; three times the most calls a flow
 * makes, for the database's waits on a busy instance (a member's lock, the bcrypt slots). Two minutes, well inside
 * the five minutes a listed passkey may be missing at Cognito before the passkey reconcile takes it off the list.
 */
export const PENDING_COGNITO_CHANGE_SETTLE_MS = 3 * MOST_COGNITO_CALLS_WHILE_NOTED * COGNITO_CALL_DEADLINE_MS;

/**
 * Notes a change about to be asked of Cognito, to be committed before the call (alone, or with what must be in place
 * before it: a passkey's place in the list). A new password is kept only as its bcrypt verifier. Answers the note's id.
 */
export async function notePendingCognitoChange(
  db: Database,
  input: {
    sub: string | null;
    email: string;
    kind: PendingCognitoChangeKind;
    /** What the change would record, for the repair; never a secret. */
    data?: Record<string, unknown>;
    newPassword?: string;
    now: Date;
  },
): Promise<string> {
  const passwordVerifier = input.newPassword === undefined ? null : await hashPasswordVerifier(input.newPassword);
  const [row] = await db
    .insert(pendingCognitoChanges)
    .values({
      sub: input.sub,
      email: input.email.trim().toLowerCase(),
      kind: input.kind,
      data: input.data ?? {},
      passwordVerifier,
      createdAt: input.now,
    })
    .returning({ id: pendingCognitoChanges.id });
  return row!.id;
}

/**
 * In the transaction that records the change: takes the note away, true when it was still there. False: the repair
 * (or a sign-in) already recorded the change or found it never happened, and this transaction records nothing more.
 */
export async function claimPendingCognitoChange(tx: Database, id: string): Promise<boolean> {
  const claimed = await tx
    .delete(pendingCognitoChanges)
    .where(eq(pendingCognitoChanges.id, id))
    .returning({ id: pendingCognitoChanges.id });
  return claimed.length > 0;
}

/** The note of a change Cognito did not make: nothing is recorded. */
export async function dropPendingCognitoChange(db: Database, id: string): Promise<void> {
  await db.delete(pendingCognitoChanges).where(eq(pendingCognitoChanges.id, id));
}

/**
 * Whether a failed Cognito call may still have made the change: no answer (a time-out, a dropped connection), a
 * refusal on the SDK's retry of such an attempt, or a failure that is no Cognito verdict at all.
 */
export function cognitoAnswerUnclear(error: unknown): boolean {
  if (!(error instanceof DomainError)) return true;
  return error.code === "unavailable" || refusedOnCognitoRetry(error);
}

/**
 * Runs the Cognito call of a noted change. When it fails, the note goes if Cognito surely did not make the change,
 * and stays for the repair when `unclear` says it may have; the error goes on either way.
 */
export async function callCognitoForPendingChange<T>(
  db: Database,
  id: string,
  call: () => Promise<T>,
  unclear: (error: unknown) => boolean = cognitoAnswerUnclear,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!unclear(error)) await dropPendingCognitoChange(db, id);
    throw error;
  }
}
