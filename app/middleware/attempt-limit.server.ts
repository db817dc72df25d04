import type { RouterContextProvider } from "react-router";
import { type LimitedAction, countAttempt } from "~/domain/limits/rate-limit.server";
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
 * anything: the address typed for sign-in, sign-up, code checks, code resends and password resets; the member's sub for
 * what a signed-in member does (profile and e-mail changes). Null: go ahead. The client IP is the one the HTTP layer
 * settled on: the socket's, or X-Forwarded-For's through TRUST_PROXY_HOPS configured proxies only. The member API
 * counts the same actions through app/api/api-handler.server.ts.
 */
export async function checkAttemptLimit(
  context: Readonly<RouterContextProvider>,
  action: LimitedAction,
  subject: string,
): Promise<AttemptRefusal | null> {
  const { clientIp } = context.get(requestInfoContext);
  const { db, config } = servicesOf(context);
  const result = await countAttempt(db, { action, subject, clientIp, overrides: config.rateLimits });
  if (result.allowed) return null;
  // Neither the subject nor the IP: the policy and the request id (on every line) find the access-log line.
  logger.warn({ policy: result.policy, retryAfterS: result.retryAfterS }, "rate limit reached");
  const messageKey = action === "signIn" ? "loginAttemptLimitExceeded" : "attemptLimitExceeded";
  return { messageKey };
}
