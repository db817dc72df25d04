import { eq, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { secondStepFailures } from "~db/schema";
import type { AppServices } from "~/services.server";
import { DomainError, type DomainErrorCode, toDomainError } from "../domain-error.server";
import { endSecondStepChallenge, noteRefusedSecondStep } from "./unfinished-second-steps.server";

/*
 * The second step's guesses, per account (docs/security.md, "Rate limits"; NIST SP 800-63B-4 §3.2.2): a six-digit code
 * is guessed one in a few hundred thousand tries, so what matters is how many tries a holder of the password gets over
 * the account's life, not per window. The count of refusals in a row (authenticator codes and recovery codes, at the
 * member and the staff sign-in alike, since they guess the same factor) never resets on a clock: only a second step
 * that succeeds clears it, and a password change or reset recorded after the last refusal (the holder of the old
 * password is then shut out anyway).
 *
 * - The first SECOND_STEP_FREE_FAILURES refusals cost nothing: a member's typos and a phone's clock.
 * - Then each try waits SECOND_STEP_FIRST_DELAY_MS after the last refusal, doubling with each further refusal up to
 *   SECOND_STEP_MAX_DELAY_MS: reaching the ceiling takes about 39 hours.
 * - At SECOND_STEP_FAILURE_CEILING (50, half NIST's 100) the second step is refused until the member changes or
 *   resets their password (forgot-password). At 50 tries with Cognito's window of three codes, an attacker's odds
 *   are about 1 in 6,700; a member's own slips never come near 50 without a success between them, and someone who
 *   gets there holds the password, which the mail about the unfinished second step (unfinished-second-steps) told
 *   the member to change. A recovery code does not lift it: it is guessed by the same step, and the reset is what
 *   shuts the guesser out.
 */
export const SECOND_STEP_FREE_FAILURES = 5;
export const SECOND_STEP_FIRST_DELAY_MS = 30_000;
export const SECOND_STEP_MAX_DELAY_MS = 60 * 60 * 1000;
export const SECOND_STEP_FAILURE_CEILING = 50;

/** How long after the last of `consecutiveFailures` refusals in a row the next try may come. */
export function secondStepDelayMs(consecutiveFailures: number): number {
  if (consecutiveFailures < SECOND_STEP_FREE_FAILURES) return 0;
  return Math.min(
    SECOND_STEP_FIRST_DELAY_MS * 2 ** (consecutiveFailures - SECOND_STEP_FREE_FAILURES),
    SECOND_STEP_MAX_DELAY_MS,
  );
}

/** Whether the account's second step may be tried now. */
export type SecondStepStanding =
  | { kind: "open" }
  | { kind: "paused"; retryAfterS: number }
  /** At the ceiling: refused until a password change or reset. */
  | { kind: "locked" };

/** The refusals of the second step itself: a wrong or used code, a recovery code that is not one, its password. */
const SECOND_STEP_REFUSALS: ReadonlySet<DomainErrorCode> = new Set([
  "codeMismatch",
  "codeExpired",
  "authenticatorCodeMismatch",
  "recoveryCodeMismatch",
  "invalidCredentials",
]);

/**
 * A password change or reset of the account recorded after the last refusal: the count starts again. Plain SQL
 * with its tables named, since it is read both in a select of the row and in the upsert's conflict branch.
 */
const passwordChangedSinceLastRefusal = sql<boolean>`exists (
  select 1 from security_events e
  join two_step_verifications t on t.sub = e.sub
  where t.username = second_step_failures.username
    and e.kind in ('password-changed', 'password-reset')
    and e.occurred_at > second_step_failures.last_failed_at)`;

/** The delay after n refusals, as a PostgreSQL array indexed by n + 1 (secondStepDelayMs is the one rule). */
const DELAYS_S = sql.raw(
  `array[${Array.from({ length: SECOND_STEP_FAILURE_CEILING + 1 }, (_, n) => secondStepDelayMs(n) / 1000).join(",")}]`,
);

/** The account's standing, for the code step's page and a refusal's message. */
export async function secondStepStandingOf(db: Database, username: string, now: Date): Promise<SecondStepStanding> {
  const [row] = await db
    .select({
      consecutiveFailures: secondStepFailures.consecutiveFailures,
      lastFailedAt: secondStepFailures.lastFailedAt,
      cleared: passwordChangedSinceLastRefusal,
    })
    .from(secondStepFailures)
    .where(eq(secondStepFailures.username, username));
  if (!row || row.cleared) return { kind: "open" };
  if (row.consecutiveFailures >= SECOND_STEP_FAILURE_CEILING) return { kind: "locked" };
  const waitMs = row.lastFailedAt.getTime() + secondStepDelayMs(row.consecutiveFailures) - now.getTime();
  return waitMs > 0 ? { kind: "paused", retryAfterS: Math.ceil(waitMs / 1000) } : { kind: "open" };
}

/**
 * Counts one refusal ahead, if a try is allowed now: one statement, whose condition PostgreSQL checks again on the
 * row as it is once any concurrent try has written it, so a burst of tries never passes a delay or the ceiling.
 */
async function reserveRefusal(db: Database, username: string, now: Date): Promise<boolean> {
  const counted = await db
    .insert(secondStepFailures)
    .values({ username, consecutiveFailures: 1, lastFailedAt: now })
    .onConflictDoUpdate({
      target: secondStepFailures.username,
      set: {
        consecutiveFailures: sql`case when ${passwordChangedSinceLastRefusal} then 1
          else ${secondStepFailures.consecutiveFailures} + 1 end`,
        lastFailedAt: now,
      },
      setWhere: sql`${passwordChangedSinceLastRefusal} or (
        ${secondStepFailures.consecutiveFailures} < ${SECOND_STEP_FAILURE_CEILING}
        and ${secondStepFailures.lastFailedAt}
          + make_interval(secs => (${DELAYS_S})[${secondStepFailures.consecutiveFailures} + 1])
          <= ${now.toISOString()}::timestamptz)`,
    })
    .returning({ consecutiveFailures: secondStepFailures.consecutiveFailures });
  return counted.length > 0;
}

/**
 * Runs one try of a sign-in's second step (`attempt`: Cognito's code challenge answered, or a recovery code's
 * sign-in) within the account's standing: refused before `attempt` while paused ("secondStepPaused") or at the
 * ceiling ("secondStepLocked"). A refusal of the code stays counted (and noted on its challenge, for the report of
 * an unfinished second step); a success clears the count and ends its challenge; anything else (Cognito down, the
 * challenge expired) is given back.
 */
export async function guardSecondStep<T>(
  deps: Pick<AppServices, "db" | "clock">,
  challenge: { username: string; session: string },
  attempt: () => Promise<T>,
): Promise<T> {
  const { db } = deps;
  const now = deps.clock.now();
  if (!(await reserveRefusal(db, challenge.username, now))) {
    const standing = await secondStepStandingOf(db, challenge.username, now);
    throw new DomainError(standing.kind === "locked" ? "secondStepLocked" : "secondStepPaused");
  }
  let result: T;
  try {
    result = await attempt();
  } catch (error) {
    const refused = toDomainError(error);
    if (refused && SECOND_STEP_REFUSALS.has(refused.code)) {
      await noteRefusedSecondStep(db, { session: challenge.session, now });
    } else {
      await db
        .update(secondStepFailures)
        .set({ consecutiveFailures: sql`greatest(${secondStepFailures.consecutiveFailures} - 1, 0)` })
        .where(eq(secondStepFailures.username, challenge.username));
    }
    throw error;
  }
  await db.delete(secondStepFailures).where(eq(secondStepFailures.username, challenge.username));
  await endSecondStepChallenge(db, challenge.session);
  return result;
}
