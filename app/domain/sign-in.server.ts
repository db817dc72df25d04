import { decodeJwt } from "jose";
import { DomainError, type DomainErrorCode } from "./domain-error.server";
import type { AppServices } from "~/services.server";
import { type StartSessionResult, startSession } from "./device-admission.server";
import { describeDevice } from "./device-description.server";
import { migrateLegacyAccount } from "./legacy-accounts.server";

export type SignInDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export type SignInResult = StartSessionResult & { accessToken: string };

/** The sign-in an access token straight from Cognito names (decoded only: it comes over TLS from Cognito). */
export function originJtiOf(accessToken: string): string | null {
  const originJti = decodeJwt(accessToken).origin_jti;
  return typeof originJti === "string" ? originJti : null;
}

/**
 * Cognito's refusals after which a pre-July-2021 account may still be waiting in the legacy table: an address
 * Cognito does not know, and one whose only user is a sign-up nobody confirmed (with the password its starter
 * chose, so Cognito says wrong password or unconfirmed). Every one of them costs the same bcrypt compare.
 */
const LEGACY_CANDIDATE_CODES: ReadonlySet<DomainErrorCode> = new Set([
  "userNotFound",
  "invalidCredentials",
  "userNotConfirmed",
]);

/** Cognito's answer, after moving a pre-July-2021 account over first when Cognito does not have it yet. */
async function authenticate(deps: SignInDependencies, input: { email: string; password: string }) {
  try {
    return await deps.identity.signIn(input);
  } catch (error) {
    if (!(error instanceof DomainError && LEGACY_CANDIDATE_CODES.has(error.code))) throw error;
    if (!(await migrateLegacyAccount(deps, input))) throw error;
    // The migrated account's username is the lower-cased address.
    return deps.identity.signIn({ ...input, email: input.email.trim().toLowerCase() });
  }
}

/**
 * Authenticates with Cognito and records the browser's session (or holds it at the device limit). Cognito's
 * failures come out as DomainErrors; wrong password, unknown and unconfirmed users read the same to the member.
 */
export async function signIn(
  deps: SignInDependencies,
  input: { email: string; password: string; deviceKey: string; userAgent: string | null },
): Promise<SignInResult> {
  const tokens = await authenticate(deps, input);
  // Straight from Cognito over TLS, so decoding is enough here; page views verify the access token properly.
  const claims = decodeJwt(tokens.idToken);
  const sub = String(claims.sub);
  const email = typeof claims.email === "string" ? claims.email : input.email;
  if (!tokens.refreshToken) throw new Error("Cognito returned no refresh token at sign-in");
  const session = await startSession(deps, {
    sub,
    email,
    deviceKey: input.deviceKey,
    device: describeDevice(input.userAgent),
    refreshToken: tokens.refreshToken,
    originJti: originJtiOf(tokens.accessToken),
    overLimit: "hold",
  });
  return { ...session, accessToken: tokens.accessToken };
}
