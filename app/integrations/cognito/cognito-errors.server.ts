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
  | "AdminDisableUser"
  | "AdminEnableUser"
  | "AdminListGroupsForUser"
  | "ListUsers"
  | "ListGroups"
  | "ListUsersInGroup"
  | "DescribeUserPool";

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

/** A Cognito failure, as the adapter reports it (the domain turns it into a DomainError). `cause` keeps the original for the logs only. */
export class IdentityError extends Error {
  constructor(
    readonly code: IdentityErrorCode,
    readonly operation: Operation,
    cause?: unknown,
  ) {
    super(`${operation} failed: ${code}`, { cause });
    this.name = "IdentityError";
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
