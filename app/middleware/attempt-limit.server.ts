import type { RouterContextProvider } from "react-router";
import { deviceCookie } from "~/cookies/app-cookies.server";
import { type LimitedAttempt, countAttempt } from "~/domain/limits/rate-limit.server";
import { type SignInDoor, reserveSignInAttempt, settleSignInAttempt } from "~/domain/limits/sign-in-failures.server";
import { logger } from "~/integrations/logger.server";
import { requestInfoContext, servicesOf } from "~/router-context.server";

/** A refused attempt, for the action to answer in its own shape (the form kit's 429, or a toast where no form is). */
export interface AttemptRefusal {
  /**
   * A key of the "toasts" namespace: the attempt-limit messages, the same for every account state so a refusal says
   * nothing about the account.
   */
  messageKey: "loginAttemptLimitExceeded" | "attemptLimitExceeded";
}

/**
 * Counts one attempt at a limited action for this client and this subject, before Cognito or the mailer is asked
 * anything: the address typed for sign-up, code checks, code resends and password resets; the member's sub for
 * what a signed-in member does (profile and e-mail changes); the client alone for a sign-in step whose refusals are
 * counted elsewhere (the code step's, app/domain/security/second-step-guard.server.ts). Null: go ahead. The client
 * IP is the one the HTTP layer settled on: the socket's, or X-Forwarded-For's through TRUST_PROXY_HOPS configured
 * proxies only. The member API counts the same actions through app/api/api-handler.server.ts.
 */
export async function checkAttemptLimit(
  context: Readonly<RouterContextProvider>,
  attempt: LimitedAttempt,
): Promise<AttemptRefusal | null> {
  const { clientIp } = context.get(requestInfoContext);
  const { db, config } = servicesOf(context);
  const result = await countAttempt(db, { ...attempt, clientIp, overrides: config.rateLimits });
  if (result.allowed) return null;
  // Neither the subject nor the IP: the policy and the request id (on every line) find the access-log line.
  logger.warn({ policy: result.policy, retryAfterS: result.retryAfterS }, "rate limit reached");
  const messageKey = attempt.action === "signIn" ? "loginAttemptLimitExceeded" : "attemptLimitExceeded";
  return { messageKey };
}

/** A sign-in let through its limits: `settle` once its outcome is known (a refused password or passkey, or not). */
export interface SignInAllowance {
  settle(outcome: { refused: boolean }): Promise<void>;
}

/**
 * Counts a password or passkey sign-in at one of the doors (app/domain/limits/sign-in-failures.server.ts): per
 * client, and a refusal reserved in the budgets this browser has with the account (its device key from the signed
 * cookie tells a browser that signed in before from a stranger's). Cognito must not be asked on a refusal.
 */
export async function allowSignInAttempt(
  context: Readonly<RouterContextProvider>,
  attempt: { door: SignInDoor; email: string; request: Request },
): Promise<{ refusal: AttemptRefusal } | SignInAllowance> {
  const { clientIp } = context.get(requestInfoContext);
  const { db, config, clock } = servicesOf(context);
  const deviceKey = await deviceCookie.read(config, attempt.request);
  const reservation = await reserveSignInAttempt(db, {
    door: attempt.door,
    email: attempt.email,
    deviceKey,
    clientIp,
    overrides: config.rateLimits,
    now: clock.now(),
  });
  if (!reservation.allowed) {
    logger.warn({ policy: reservation.policy, retryAfterS: reservation.retryAfterS }, "rate limit reached");
    return { refusal: { messageKey: "loginAttemptLimitExceeded" } };
  }
  return { settle: (outcome) => settleSignInAttempt(db, reservation, outcome) };
}
