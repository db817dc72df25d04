/**
 * The one table from Cognito's errors to what the app does and says. Error names follow the AWS API reference
 * (never the stand-in's quirks). A row with an operation wins over the row without one for the same error. Where
 * Cognito gives one error name several meanings (NotAuthorizedException), a row may also name Cognito's exact
 * message; such rows come first, and any other message falls through to the error's general row.
 */
export type IdentityErrorCode =
  | "invalidCredentials"
  | "currentPasswordMismatch"
  | "userNotConfirmed"
  | "usernameExists"
  | "codeMismatch"
  | "codeExpired"
  | "authenticatorCodeMismatch"
  | "invalidPassword"
  | "legacyPasswordBelowPolicy"
  | "invalidInput"
  | "emailUnavailable"
  | "userNotFound"
  | "alreadyConfirmed"
  | "signInThrottled"
  | "throttled"
  | "unavailable"
  | "temporaryPasswordExpired"
  | "invitationPending"
  | "invitationNotPending"
  | "challengeExpired"
  | "softwareTokenNotFound"
  | "passkeyRefused"
  | "passkeyNotFound";

type Operation =
  | "SignUp"
  | "ConfirmSignUp"
  | "ResendConfirmationCode"
  | "AdminInitiateAuth"
  | "AdminRespondToAuthChallenge"
  | "AssociateSoftwareToken"
  | "VerifySoftwareToken"
  | "SetUserMFAPreference"
  | "AdminSetUserMFAPreference"
  | "AdminDeleteSoftwareToken"
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
  | "DescribeUserPool"
  | "StartWebAuthnRegistration"
  | "CompleteWebAuthnRegistration"
  | "DeleteWebAuthnCredential"
  | "ListWebAuthnCredentials"
  // AdminInitiateAuth with USER_AUTH (WEB_AUTHN preferred) and AdminRespondToAuthChallenge's WEB_AUTHN answer: a
  // passkey sign-in, whose refusals mean something else than a password's.
  | "PasskeySignIn"
  | "PasskeyChallengeAnswer";

export type CognitoOperation = Operation;

const ERROR_TABLE: { error: string; operation?: Operation; message?: string; code: IdentityErrorCode }[] = [
  // An invited member (AdminCreateUser) whose temporary password is older than TemporaryPasswordValidityDays. Cognito
  // says so only after the password matched, so telling the member reveals nothing to anyone else.
  {
    error: "NotAuthorizedException",
    operation: "AdminInitiateAuth",
    message: "Temporary password has expired and must be reset by an administrator.",
    code: "temporaryPasswordExpired",
  },
  // ForgotPassword for an invited member who never chose a password (FORCE_CHANGE_PASSWORD): only a new invitation
  // (AdminCreateUser RESEND) helps.
  {
    error: "NotAuthorizedException",
    operation: "ForgotPassword",
    message: "User password cannot be reset in the current state.",
    code: "invitationPending",
  },
  // The challenge's Session is used up, past AuthSessionValidity (3 minutes by default) or not this user's.
  { error: "NotAuthorizedException", operation: "AdminRespondToAuthChallenge", code: "challengeExpired" },
  // The browser's passkey answer was not accepted: an unknown or deleted credential, a failed signature, the
  // challenge's Session used up or too old, or a ceremony made for another origin or relying party.
  { error: "NotAuthorizedException", operation: "PasskeyChallengeAnswer", code: "passkeyRefused" },
  { error: "InvalidParameterException", operation: "PasskeyChallengeAnswer", code: "passkeyRefused" },
  { error: "InvalidParameterException", operation: "CompleteWebAuthnRegistration", code: "passkeyRefused" },
  { error: "WebAuthnChallengeNotFoundException", code: "passkeyRefused" },
  { error: "WebAuthnOriginNotAllowedException", code: "passkeyRefused" },
  { error: "WebAuthnRelyingPartyMismatchException", code: "passkeyRefused" },
  { error: "WebAuthnClientMismatchException", code: "passkeyRefused" },
  { error: "WebAuthnCredentialNotSupportedException", code: "passkeyRefused" },
  // The passkey is no longer at Cognito (deleted from another browser): the member's list only needs to agree.
  { error: "ResourceNotFoundException", operation: "DeleteWebAuthnCredential", code: "passkeyNotFound" },
  // RESEND for a user who is no longer waiting for a first sign-in.
  { error: "UnsupportedUserStateException", code: "invitationNotPending" },
  { error: "NotAuthorizedException", operation: "ChangePassword", code: "currentPasswordMismatch" },
  { error: "NotAuthorizedException", code: "invalidCredentials" },
  { error: "UserNotFoundException", operation: "AdminInitiateAuth", code: "userNotFound" },
  { error: "UserNotFoundException", code: "userNotFound" },
  { error: "UserNotConfirmedException", code: "userNotConfirmed" },
  { error: "PasswordResetRequiredException", code: "invalidCredentials" },
  { error: "UsernameExistsException", code: "usernameExists" },
  { error: "AliasExistsException", code: "emailUnavailable" },
  // The authenticator app's code, at the sign-in's code step or its set-up: wrong, or a time step used already.
  { error: "CodeMismatchException", operation: "AdminRespondToAuthChallenge", code: "authenticatorCodeMismatch" },
  { error: "ExpiredCodeException", operation: "AdminRespondToAuthChallenge", code: "authenticatorCodeMismatch" },
  { error: "CodeMismatchException", operation: "VerifySoftwareToken", code: "authenticatorCodeMismatch" },
  { error: "CodeMismatchException", code: "codeMismatch" },
  // VerifySoftwareToken's wrong first code.
  { error: "EnableSoftwareTokenMFAException", code: "authenticatorCodeMismatch" },
  // No authenticator to turn on, off or delete (or TOTP not enabled for the pool).
  { error: "SoftwareTokenMFANotFoundException", code: "softwareTokenNotFound" },
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
  const message = error instanceof Error ? error.message : "";
  const fits = (candidate: (typeof ERROR_TABLE)[number]) =>
    candidate.error === name && (candidate.message === undefined || candidate.message === message);
  const row =
    ERROR_TABLE.find((candidate) => fits(candidate) && candidate.operation === operation) ??
    ERROR_TABLE.find((candidate) => fits(candidate) && candidate.operation === undefined);
  return new IdentityError(row?.code ?? "unavailable", operation, error);
}

/**
 * Whether Cognito's refusal came on the SDK's retry of a call whose first attempt timed out or failed in transit
 * (the SDK retries only those): that first attempt may have done the work the retry is refused for (a reset code
 * already used, a current password already changed). Read from the SDK error's `$metadata.attempts`, anywhere in the
 * cause chain.
 */
export function refusedOnRetry(error: unknown): boolean {
  for (let link: unknown = error; link instanceof Error; link = link.cause) {
    const attempts = (link as { $metadata?: { attempts?: number } }).$metadata?.attempts;
    if (attempts !== undefined) return attempts > 1;
  }
  return false;
}
