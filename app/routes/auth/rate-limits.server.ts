import type { RouterContextProvider } from "react-router";
import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import { type AuthAttempt, countAuthAttempt } from "~/domain/rate-limit.server";
import { logger } from "~/integrations/logger.server";
import { requestInfoContext } from "~/server/request-context";

/** A refused attempt, for the action to answer in its own shape (form error, or toast where the form has none). */
export interface AttemptRefusal {
  /** A key of the "toasts" namespace: the spec's attempt-limit messages, the same for every account state. */
  messageKey: "loginAttemptLimitExceeded" | "attemptLimitExceeded";
  /** The same, as a form error (`submission.reply({ formErrors: [formError] })`). */
  formError: string;
  /**
   * Too Many Requests. No Retry-After: React Router sends an action's headers on a document response only through
   * the route's `headers` export, and the spec's message already says when to come back.
   */
  init: { status: 429 };
}

/**
 * Counts one sign-in, sign-up, code check, code resend or password-reset request for this client and this
 * address, before Cognito is asked anything. Null: go ahead. The client IP is the one the HTTP layer settled on:
 * the socket's, or X-Forwarded-For's through TRUST_PROXY_HOPS configured proxies only (SECURITY.md 3).
 */
export async function checkAttemptLimit(
  context: Readonly<RouterContextProvider>,
  attempt: AuthAttempt,
  email: string,
): Promise<AttemptRefusal | null> {
  const { clientIp, requestId } = context.get(requestInfoContext);
  const result = await countAuthAttempt(getDatabase(), {
    attempt,
    email,
    clientIp,
    overrides: getConfig().rateLimits,
  });
  if (result.allowed) return null;
  // Neither the address nor the IP: the policy and request id are enough to find the access-log line.
  logger.warn({ requestId, policy: result.policy, retryAfterS: result.retryAfterS }, "rate limit reached");
  const messageKey = attempt === "signIn" ? "loginAttemptLimitExceeded" : "attemptLimitExceeded";
  return {
    messageKey,
    formError: `toasts:${messageKey}`,
    init: { status: 429 },
  };
}
