/**
 * Typed calls to the stand-in harness's control endpoint (`<endpoint>/__harness/…`), for tests and for anything
 * else that runs against the stand-in. Never part of production: production has no harness.
 */
import { HARNESS_PATH, type FaultSettings, type FaultState, type LoggedRequest, type RequestCounts } from "./faults";

export type { FaultMode, FaultSettings, FaultState, LoggedRequest, RequestCounts, ThrottleError } from "./faults";
export { JWKS_OPERATION, OPENID_CONFIGURATION_OPERATION } from "./faults";

async function call<T>(endpoint: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${endpoint.replace(/\/$/, "")}${HARNESS_PATH}${path}`, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(`Stand-in harness ${method} ${path}: ${payload.error ?? response.status}`);
  return payload;
}

/**
 * "Deploys" one of the stand-in's Lambda functions with its environment (stand-in/lambda-functions.ts), as an
 * operator deploys the app's trigger next to a real pool.
 */
export async function configureFunction(
  endpoint: string,
  name: string,
  environment: Record<string, string>,
): Promise<void> {
  await call(endpoint, "PUT", `/functions/${name}`, { environment });
}

/** Makes the stand-in slow, throttle or fail (see FaultSettings); `{ mode: "none" }` ends it. */
export function setFault(endpoint: string, settings: FaultSettings): Promise<FaultState> {
  return call(endpoint, "POST", "/faults", settings);
}

export function getFault(endpoint: string): Promise<FaultState> {
  return call(endpoint, "GET", "/faults");
}

/** No fault, and the request counter back to zero. */
export async function resetHarness(endpoint: string): Promise<void> {
  await call(endpoint, "POST", "/reset");
}

/** Requests the stand-in received since the last reset, in total and per operation. */
export function getRequestCounts(endpoint: string): Promise<RequestCounts> {
  return call(endpoint, "GET", "/requests");
}

export async function resetRequestCounts(endpoint: string): Promise<void> {
  await call(endpoint, "DELETE", "/requests");
}

/** Every request since the last reset (the newest 50,000), with the time the stand-in received it. */
export async function getRequestLog(endpoint: string): Promise<LoggedRequest[]> {
  return (await call<{ requests: LoggedRequest[] }>(endpoint, "GET", "/requests/log")).requests;
}

/** A user for seedUsers: confirmed, enabled and verified unless told otherwise. */
export interface SeedUser {
  email: string;
  attributes?: Record<string, string>;
  status?: string;
  enabled?: boolean;
}

/**
 * Writes many users straight into the stand-in's store in one write (AdminCreateUser one at a time looks through
 * the whole pool for each new user, far too slow for thousands). Their creation times follow the list's order.
 * For tests of scale only; answers each user's sub.
 */
export async function seedUsers(
  endpoint: string,
  userPoolId: string,
  users: SeedUser[],
): Promise<{ sub: string; email: string }[]> {
  return (await call<{ users: { sub: string; email: string }[] }>(endpoint, "POST", "/users", { userPoolId, users }))
    .users;
}

/**
 * Makes a user's current invitation (AdminCreateUser or its RESEND) `days` older, so a test reaches an expired
 * temporary password (TemporaryPasswordValidityDays) without waiting. `username` is the e-mail or the sub.
 */
export async function ageInvitation(
  endpoint: string,
  userPoolId: string,
  username: string,
  days: number,
): Promise<void> {
  await call(endpoint, "POST", "/users/invitation-age", { userPoolId, username, days });
}

/**
 * Every challenge Session handed out so far (NEW_PASSWORD_REQUIRED, SOFTWARE_TOKEN_MFA, passkey sign-in) expires now,
 * as after Cognito's 3 minutes.
 */
export async function expireChallengeSessions(endpoint: string): Promise<void> {
  await call(endpoint, "POST", "/challenge-sessions/expire");
}
