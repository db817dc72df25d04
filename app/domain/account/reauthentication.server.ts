import { and, eq, isNull, sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import type { Database } from "../../../db/client.server";
import { memberSessions } from "../../../db/schema";
import { logger } from "~/integrations/logger.server";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { recordSecurityEvent } from "../security/security-record.server";
import { twoStepMemberByUsername } from "../security/two-step-verification.server";

/**
 * How long a password typed on a session vouches for it: changing the e-mail address and downloading the data copy
 * need one this recent (GitHub's sudo mode, Epic Stack's recent verification), so a session left open for a month
 * cannot take the account over or read everything about the member.
 */
export const REAUTHENTICATION_WINDOW_MS = 10 * 60 * 1000;

/**
 * Whether a bearer token's sign-in (its `auth_time`, which Cognito keeps across refreshes) is within the window: the
 * staff API's high-impact actions need one this recent, as the pages need a recent password. A token without the
 * claim never is.
 */
export function signedInRecently(authTime: Date | null, now: Date): boolean {
  return authTime !== null && now.getTime() - authTime.getTime() <= REAUTHENTICATION_WINDOW_MS;
}

/** Whether the password was typed on this session within the window. */
export function hasRecentPassword(session: { passwordVerifiedAt: Date | null }, now: Date): boolean {
  if (!session.passwordVerifiedAt) return false;
  return now.getTime() - session.passwordVerifiedAt.getTime() <= REAUTHENTICATION_WINDOW_MS;
}

/** Notes that the member typed their password on this live session just now (sign-in, password change, re-check). */
export async function recordPasswordTyped(
  db: Database,
  input: { sub: string; sessionId: string; at: Date },
): Promise<void> {
  await db
    .update(memberSessions)
    .set({ passwordVerifiedAt: input.at })
    .where(
      and(eq(memberSessions.id, input.sessionId), eq(memberSessions.sub, input.sub), isNull(memberSessions.revokedAt)),
    );
}

/**
 * Moves this session's password time back, as if that many minutes had passed since: the dev tools' control
 * (development and preview only), so that a browser test sees the password step without a shared clock that would
 * move for every other test the one preview server serves.
 */
export async function movePasswordTimeBack(
  db: Database,
  input: { sub: string; sessionId: string; minutes: number },
): Promise<void> {
  await db
    .update(memberSessions)
    .set({ passwordVerifiedAt: sql`${memberSessions.passwordVerifiedAt} - make_interval(mins => ${input.minutes})` })
    .where(
      and(eq(memberSessions.id, input.sessionId), eq(memberSessions.sub, input.sub), isNull(memberSessions.revokedAt)),
    );
}

/**
 * Checks a signed-in member's password at Cognito with a password sign-in. For a member with 2-step verification that
 * sign-in ends at Cognito's code challenge, which Cognito issues only once the password matched: the challenge is
 * proof enough, when the user name it names is this member's. A wrong password, or another member's account, is
 * "currentPasswordMismatch". Answers the check's refresh token when Cognito issued tokens (the caller revokes it).
 */
export async function checkMemberPassword(
  deps: Pick<AppServices, "db" | "identity">,
  input: { sub: string; email: string; password: string },
): Promise<{ refreshToken?: string }> {
  let answer;
  try {
    answer = await deps.identity.beginSignIn({ email: input.email, password: input.password });
  } catch (error) {
    if (error instanceof DomainError && (error.code === "invalidCredentials" || error.code === "userNotFound")) {
      throw new DomainError("currentPasswordMismatch", { cause: error });
    }
    throw error;
  }
  if (answer.kind === "tokens") {
    const { refreshToken, idToken } = answer.tokens;
    // Straight from Cognito over TLS: decoding is enough. Another account's password proves nothing about this one.
    if (decodeJwt(idToken).sub === input.sub) return { refreshToken };
    if (refreshToken) await deps.identity.revokeRefreshToken(refreshToken).catch(() => undefined);
  } else if (answer.kind === "softwareTokenRequired") {
    if ((await twoStepMemberByUsername(deps.db, answer.username))?.sub === input.sub) return {};
  }
  throw new DomainError("currentPasswordMismatch");
}

/**
 * The password step before a sensitive change: the password is checked by a Cognito sign-in (checkMemberPassword), as
 * the cancellation checks it (a wrong one is the DomainError "currentPasswordMismatch"; the caller counts the attempt with the
 * sign-in attempts). The check's own sign-in is revoked at once: it must not outlive the step. The session's
 * password time is then renewed and the event recorded.
 */
export async function reauthenticate(
  deps: Pick<AppServices, "db" | "identity" | "clock">,
  input: { sub: string; email: string; sessionId: string; password: string; clientIp: string },
): Promise<void> {
  const { refreshToken } = await checkMemberPassword(deps, input);
  if (refreshToken) {
    await deps.identity
      .revokeRefreshToken(refreshToken)
      .catch((error: unknown) => logger.warn({ err: error }, "could not revoke the password step's refresh token"));
  }
  const occurredAt = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await recordPasswordTyped(tx, { sub: input.sub, sessionId: input.sessionId, at: occurredAt });
    await recordSecurityEvent(tx, {
      kind: "re-authenticated",
      sub: input.sub,
      sessionId: input.sessionId,
      ipAddress: input.clientIp,
      occurredAt,
    });
  });
}
