import { type DomainError, type DomainErrorCode, toDomainError } from "~/domain/domain-error.server";

/** What each domain error tells the member: a namespaced message key. */
const MESSAGE_KEYS: Record<DomainErrorCode, string> = {
  invalidCredentials: "toasts:loginFailed",
  currentPasswordMismatch: "toasts:currentPasswordMismatch",
  // Sign-in treats unconfirmed like wrong credentials (no account enumeration); flows that know better resend.
  userNotConfirmed: "toasts:loginFailed",
  usernameExists: "toasts:emailUnavailable",
  codeMismatch: "toasts:codeMismatch",
  codeExpired: "toasts:codeMismatch",
  authenticatorCodeMismatch: "toasts:authenticatorCodeMismatch",
  invalidPassword: "toasts:invalidPassword",
  // A pre-July-2021 password Cognito's policy refuses: the account cannot move over with it.
  legacyPasswordBelowPolicy: "toasts:legacyPasswordNotCarriedOver",
  invalidInput: "toasts:invalidInput",
  emailUnavailable: "toasts:emailUnavailable",
  userNotFound: "toasts:loginFailed",
  alreadyConfirmed: "toasts:codeMismatch",
  signInThrottled: "toasts:loginAttemptLimitExceeded",
  throttled: "toasts:attemptLimitExceeded",
  unavailable: "toasts:identityUnavailable",
  temporaryPasswordExpired: "toasts:temporaryPasswordExpired",
  // Both are handled by the password reset (a new invitation, or the usual neutral answer); never shown as such.
  invitationPending: "toasts:loginFailed",
  invitationNotPending: "toasts:loginFailed",
  challengeExpired: "toasts:newPasswordChallengeExpired",
  passkeyRefused: "passkeys:errors.refused",
  // Deleting a passkey already gone at Cognito is done, not an error (removePasskey); never shown as such.
  passkeyNotFound: "passkeys:errors.refused",
  noPasskey: "passkeys:errors.noPasskey",
  sameAddress: "emailChange:errors.sameAddress",
  mailUnavailable: "emailChange:errors.mailUnavailable",
  memberNotFound: "errors:staff.memberNotFound",
  targetIsStaff: "errors:staff.targetIsStaff",
  passwordTooCommon: "forms:validation.passwordTooCommon",
  passwordFromPersonalDetails: "forms:validation.passwordFromPersonalDetails",
  softwareTokenNotFound: "toasts:twoStepNotOn",
  recoveryCodeMismatch: "toasts:recoveryCodeMismatch",
  // Only the 2-step verification asks for a code after the password: the authenticator app's.
  codeRequired: "forms:validation.authenticatorCodeRequired",
  authenticatorSetupExpired: "toasts:authenticatorSetupExpired",
  secondStepPaused: "toasts:loginAttemptLimitExceeded",
  secondStepLocked: "toasts:secondStepLocked",
  passwordChangeUnconfirmed: "toasts:passwordChangeUnconfirmed",
  passwordResetUnconfirmed: "toasts:passwordResetUnconfirmed",
};

export function messageKeyOf(error: DomainError): string {
  return MESSAGE_KEYS[error.code];
}

/**
 * The status a page or the API answers with: 503 when a service below is down (or left a change unconfirmed), 429 when it throttles or the second
 * step's limit holds, 404 for a member staff named that does not exist, 403 for a staff action on a staff member,
 * else 400.
 */
/** A service below is down, or left a change unconfirmed. */
const UNAVAILABLE: ReadonlySet<DomainErrorCode> = new Set([
  "unavailable",
  "mailUnavailable",
  "passwordChangeUnconfirmed",
  "passwordResetUnconfirmed",
]);

const TOO_MANY: ReadonlySet<DomainErrorCode> = new Set([
  "throttled",
  "signInThrottled",
  "secondStepPaused",
  "secondStepLocked",
]);

export function httpStatusOf(error: DomainError): 400 | 403 | 404 | 429 | 503 {
  if (UNAVAILABLE.has(error.code)) return 503;
  if (error.code === "memberNotFound") return 404;
  if (error.code === "targetIsStaff") return 403;
  return TOO_MANY.has(error.code) ? 429 : 400;
}

/** The domain error of a failure, or the failure rethrown when it is none (a bug or a fault: the error page). */
export function domainErrorOf(error: unknown): DomainError {
  const domainError = toDomainError(error);
  if (!domainError) throw error;
  return domainError;
}
