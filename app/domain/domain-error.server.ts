import { IdentityError, refusedOnRetry } from "~/integrations/cognito/cognito-errors.server";
import { MailUnavailableError } from "~/integrations/mailer.server";

/**
 * What went wrong, in the member's terms. The identity codes keep the names of the Cognito adapter's verdicts
 * (one table in app/integrations/cognito/cognito-errors.server.ts decides them); the rest are the domain's own.
 */
export const DOMAIN_ERROR_CODES = [
  "invalidCredentials",
  "currentPasswordMismatch",
  "userNotConfirmed",
  "usernameExists",
  "codeMismatch",
  "codeExpired",
  // The authenticator app's code (2-step verification) is wrong or used already; the mailed codes are codeMismatch.
  "authenticatorCodeMismatch",
  "invalidPassword",
  "legacyPasswordBelowPolicy",
  "invalidInput",
  "emailUnavailable",
  "userNotFound",
  "alreadyConfirmed",
  "signInThrottled",
  "throttled",
  "unavailable",
  // An invited member's temporary password is past its validity: a new invitation (the forgot-password page) helps.
  "temporaryPasswordExpired",
  // Password reset for an invited member who never signed in: the invitation is mailed again instead.
  "invitationPending",
  // A new invitation for a member who has already chosen a password.
  "invitationNotPending",
  // The first sign-in's "choose your password" step took longer than Cognito's challenge session lives.
  "challengeExpired",
  // A passkey ceremony Cognito did not accept (unknown or deleted passkey, too slow, wrong origin).
  "passkeyRefused",
  // A passkey the member deletes is already gone at Cognito.
  "passkeyNotFound",
  // A passkey sign-in for an address that has no passkey (or that Cognito does not know: the two read the same).
  "noPasskey",
  // An e-mail change to the address the member already has.
  "sameAddress",
  // The mail server did not take the mail.
  "mailUnavailable",
  // A staff action named a sub that is neither in the directory nor in Cognito.
  "memberNotFound",
  // A staff action on a staff member's account (a colleague's or one's own): that is done in the AWS console.
  "targetIsStaff",
  // A new password too easy to guess: common or breached, or made of the member's own address or name.
  "passwordTooCommon",
  "passwordFromPersonalDetails",
  // No authenticator app to turn on or off at Cognito.
  "softwareTokenNotFound",
  // A recovery code that is not one of the member's unused codes.
  "recoveryCodeMismatch",
  // A member with 2-step verification changed their password without the authenticator app's code.
  "codeRequired",
  // The authenticator's setup was left too long (or belongs to another sign-in): it starts again.
  "authenticatorSetupExpired",
  // The sign-in's second step refused codes in a row: the next try must wait (second-step-guard).
  "secondStepPaused",
  // The sign-in's second step refused codes up to its ceiling: refused until the password is changed or reset.
  "secondStepLocked",
  // Cognito did not answer a password change clearly, and could not say afterwards whether the new password works.
  "passwordChangeUnconfirmed",
  // The same for a password reset with the mailed code.
  "passwordResetUnconfirmed",
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** A failure the member or the caller can be told about; the edge (app/errors) says it as a message and a status. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    options?: { cause?: unknown },
  ) {
    super(`Refused: ${code}`, options);
    this.name = "DomainError";
  }
}

/**
 * The domain's boundary for the adapters' errors: a Cognito verdict or an unsent mail becomes the DomainError of
 * the same meaning; anything else (a bug, a database fault) is not a domain error and gives null.
 */
export function toDomainError(error: unknown): DomainError | null {
  if (error instanceof DomainError) return error;
  if (error instanceof IdentityError) return new DomainError(error.code, { cause: error });
  if (error instanceof MailUnavailableError) return new DomainError("mailUnavailable", { cause: error });
  return null;
}

/**
 * Whether Cognito refused on the SDK's retry of an attempt that timed out or failed in transit, which may itself have
 * done the work the retry is refused for (app/integrations/cognito/cognito-errors.server.ts).
 */
export function refusedOnCognitoRetry(error: DomainError): boolean {
  return refusedOnRetry(error.cause);
}

type AsyncMethods<T> = { [K in keyof T]: (...args: never[]) => Promise<unknown> };

/**
 * An adapter (the identity provider, the mailer) as the domain uses it: each method throws the DomainError of its
 * adapter's failure (the adapter's error as `cause`), so no domain verb sees the adapter's error types. Other
 * failures (bugs, faults) pass through unchanged.
 */
export function withDomainErrors<T extends AsyncMethods<T>>(adapter: T): T {
  const entries = Object.entries(adapter as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>).map(
    ([name, method]) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await method.apply(adapter, args);
        } catch (error) {
          throw toDomainError(error) ?? error;
        }
      },
    ],
  );
  return Object.fromEntries(entries) as T;
}
