import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "~db/client.server";
import { memberSessions } from "~db/schema";
import type { Locale } from "~/i18n/locales";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import type { AppServices } from "~/services.server";
import { DomainError } from "../domain-error.server";
import { reconcilePasskeysLater } from "../security/factor-reconcile.server";
import { guardSecondStep } from "../security/second-step-guard.server";
import { recordSecurityEvent } from "../security/security-record.server";
import { keepServerToken } from "../sessions/server-tokens.server";
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
 * Checks a signed-in member's password at Cognito with a password sign-in through the server-only app client (its
 * tokens never leave the server, so nothing needs revoking). Answers the ServerToken, or, for a member with 2-step
 * verification, Cognito's code challenge, which Cognito issues only once the password matched. A wrong password, or
 * another member's account, is "currentPasswordMismatch".
 */
export async function checkMemberPassword(
  deps: Pick<AppServices, "db" | "identity">,
  input: { sub: string; email: string; password: string },
): Promise<{ kind: "token"; token: ServerToken } | { kind: "codeRequired"; username: string; session: string }> {
  let answer;
  try {
    answer = await deps.identity.serverSignIn({ email: input.email, password: input.password });
  } catch (error) {
    if (error instanceof DomainError && (error.code === "invalidCredentials" || error.code === "userNotFound")) {
      throw new DomainError("currentPasswordMismatch", { cause: error });
    }
    throw error;
  }
  // Another account's password proves nothing about this one.
  if (answer.kind === "serverToken" && answer.token.sub === input.sub) return { kind: "token", token: answer.token };
  if (answer.kind === "softwareTokenRequired") {
    if ((await twoStepMemberByUsername(deps.db, answer.username))?.sub === input.sub) {
      return { kind: "codeRequired", username: answer.username, session: answer.session };
    }
  }
  throw new DomainError("currentPasswordMismatch");
}

/**
 * Whether `password` signs the member in at Cognito now, for a change whose answer was lost (a password change or
 * reset): null when Cognito does not say (still down, throttling). Through the server-only client, whose tokens never
 * leave the server.
 */
export async function passwordSignsIn(
  deps: Pick<AppServices, "db" | "identity">,
  input: { sub: string; email: string; password: string },
): Promise<boolean | null> {
  try {
    // A member with 2-step verification gets the code challenge, which Cognito issues only to the right password.
    await checkMemberPassword(deps, input);
    return true;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return error.code === "currentPasswordMismatch" ? false : null;
  }
}

/**
 * The member's password, and for a member with 2-step verification the authenticator app's code, checked at Cognito
 * through the server-only app client: the ServerToken that the credential changes use. A missing code is "codeRequired"
 * (the password was right: the form asks for the code beside it), a wrong one "authenticatorCodeMismatch"; the code
 * counts with the sign-in's second step (guardSecondStep), so a copied session and the password cannot guess codes here
 * faster than at sign-in.
 */
export async function verifyMemberFactors(
  deps: Pick<AppServices, "db" | "identity" | "clock">,
  input: { sub: string; email: string; password: string; code?: string | undefined },
): Promise<ServerToken> {
  const checked = await checkMemberPassword(deps, input);
  if (checked.kind === "token") return checked.token;
  const { code } = input;
  if (!code) throw new DomainError("codeRequired");
  const token = await guardSecondStep(deps, checked, () =>
    deps.identity.serverAnswerSoftwareTokenChallenge({ username: checked.username, session: checked.session, code }),
  );
  if (token.sub !== input.sub) throw new DomainError("currentPasswordMismatch");
  return token;
}

/**
 * The re-authentication step before a sensitive change: the password (and the app's code, with 2-step verification)
 * checked by verifyMemberFactors, as the cancellation checks the password (the caller counts the attempt with the
 * sign-in attempts). The session's password time is then renewed, its server token kept for the credential changes
 * of the next minutes, and the event recorded; the member's passkeys are reconciled with the token after the answer.
 */
export async function reauthenticate(
  deps: Pick<AppServices, "db" | "identity" | "clock" | "config">,
  input: {
    sub: string;
    email: string;
    sessionId: string;
    password: string;
    code?: string | undefined;
    clientIp: string;
    /** The page's language: a mail's, should the passkeys reconciled with the new token need one. */
    locale: Locale;
  },
): Promise<void> {
  const token = await verifyMemberFactors(deps, input);
  const occurredAt = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await recordPasswordTyped(tx, { sub: input.sub, sessionId: input.sessionId, at: occurredAt });
    await keepServerToken(tx, { sessionId: input.sessionId, token, secrets: deps.config.sessionSecrets });
    await recordSecurityEvent(tx, {
      kind: "re-authenticated",
      sub: input.sub,
      sessionId: input.sessionId,
      ipAddress: input.clientIp,
      occurredAt,
    });
  });
  reconcilePasskeysLater(deps, { sub: input.sub, email: input.email, locale: input.locale, token });
}
