/**
 * The one table from Cognito's errors to what the app does and says. Error names follow the AWS API reference
 * (never the stand-in's quirks). A row with an operation wins over the row without one for the same error.
 */
export type IdentityErrorCode =
  | "invalidCredentials"
  | "currentPasswordMismatch"
  | "userNotConfirmed"
  | "usernameExists"
  | "codeMismatch"
  | "codeExpired"
  | "invalidPassword"
  | "legacyPasswordBelowPolicy"
  | "invalidInput"
  | "emailUnavailable"
  | "userNotFound"
  | "alreadyConfirmed"
  | "signInThrottled"
  | "throttled"
  | "unavailable";

/** Where each code sends the member: a message key in the "toasts" namespace. */
export const IDENTITY_ERROR_MESSAGES: Record<IdentityErrorCode, string> = {
  invalidCredentials: "loginFailed",
  currentPasswordMismatch: "currentPasswordMismatch",
  // Sign-in treats unconfirmed like wrong credentials (no account enumeration); flows that know better resend.
  userNotConfirmed: "loginFailed",
  usernameExists: "emailUnavailable",
  codeMismatch: "codeMismatch",
  codeExpired: "codeMismatch",
  invalidPassword: "invalidPassword",
  // A pre-July-2021 password Cognito's policy refuses: the account cannot move over with it (legacy-accounts.server.ts).
  legacyPasswordBelowPolicy: "legacyPasswordNotCarriedOver",
  invalidInput: "invalidInput",
  emailUnavailable: "emailUnavailable",
  userNotFound: "loginFailed",
  alreadyConfirmed: "codeMismatch",
  signInThrottled: "loginAttemptLimitExceeded",
  throttled: "attemptLimitExceeded",
  unavailable: "identityUnavailable",
};

type Operation =
  | "SignUp"
  | "ConfirmSignUp"
  | "ResendConfirmationCode"
  | "AdminInitiateAuth"
  | "RefreshToken"
  | "RevokeToken"
  | "AdminUserGlobalSignOut"
  | "ForgotPassword"
  | "ConfirmForgotPassword"
  | "ChangePassword"
  | "AdminGetUser"
  | "AdminUpdateUserAttributes"
  | "AdminCreateUser"
  | "AdminSetUserPassword"
  | "AdminDeleteUser"
  | "AdminDisableUser";

export type CognitoOperation = Operation;

const ERROR_TABLE: { error: string; operation?: Operation; code: IdentityErrorCode }[] = [
  { error: "NotAuthorizedException", operation: "ChangePassword", code: "currentPasswordMismatch" },
  { error: "NotAuthorizedException", code: "invalidCredentials" },
  { error: "UserNotFoundException", operation: "AdminInitiateAuth", code: "userNotFound" },
  { error: "UserNotFoundException", code: "userNotFound" },
  { error: "UserNotConfirmedException", code: "userNotConfirmed" },
  { error: "PasswordResetRequiredException", code: "invalidCredentials" },
  { error: "UsernameExistsException", code: "usernameExists" },
  { error: "AliasExistsException", code: "emailUnavailable" },
  { error: "CodeMismatchException", code: "codeMismatch" },
  { error: "ExpiredCodeException", code: "codeExpired" },
  { error: "InvalidPasswordException", code: "invalidPassword" },
  { error: "InvalidParameterException", operation: "ResendConfirmationCode", code: "alreadyConfirmed" },
  { error: "InvalidParameterException", code: "invalidInput" },
  { error: "LimitExceededException", operation: "AdminInitiateAuth", code: "signInThrottled" },
  { error: "TooManyRequestsException", operation: "AdminInitiateAuth", code: "signInThrottled" },
  { error: "TooManyFailedAttemptsException", operation: "AdminInitiateAuth", code: "signInThrottled" },
  { error: "LimitExceededException", code: "throttled" },
  { error: "TooManyRequestsException", code: "throttled" },
  { error: "TooManyFailedAttemptsException", code: "throttled" },
  { error: "CodeDeliveryFailureException", code: "unavailable" },
  { error: "InternalErrorException", code: "unavailable" },
];

/** The HTTP status a page answers with: 503 when Cognito is down, 429 when it throttles, else 400; never 500. */
export function httpStatusFor(error: IdentityError): 400 | 429 | 503 {
  if (error.code === "unavailable") return 503;
  return error.code === "throttled" || error.code === "signInThrottled" ? 429 : 400;
}

/** A Cognito failure, as the domain sees it. `cause` keeps the original for the logs only. */
export class IdentityError extends Error {
  readonly messageKey: string;
  constructor(
    readonly code: IdentityErrorCode,
    readonly operation: Operation,
    cause?: unknown,
  ) {
    super(`${operation} failed: ${code}`, { cause });
    this.name = "IdentityError";
    this.messageKey = IDENTITY_ERROR_MESSAGES[code];
  }
}

/**
 * Maps anything a Cognito call threw to an IdentityError. Unknown errors, time-outs, network failures and
 * 5xx answers all mean "unavailable": the member sees "temporarily unavailable", never a 500.
 */
export function toIdentityError(error: unknown, operation: Operation): IdentityError {
  if (error instanceof IdentityError) return error;
  const name = error instanceof Error ? error.name : "";
  const row =
    ERROR_TABLE.find((candidate) => candidate.error === name && candidate.operation === operation) ??
    ERROR_TABLE.find((candidate) => candidate.error === name && candidate.operation === undefined);
  return new IdentityError(row?.code ?? "unavailable", operation, error);
}
