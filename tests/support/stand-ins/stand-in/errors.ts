/**
 * Errors the stand-in harness answers with, in Cognito's JSON 1.1 shape: HTTP 400 (or 500 for InternalErrorException)
 * with `{"__type": "<Name>", "message": "<text>"}`. Names and texts follow what real Cognito returns.
 */
export class CognitoFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = type;
  }
}

export const fault = {
  incorrectCredentials: () => new CognitoFault("NotAuthorizedException", "Incorrect username or password."),
  userDisabled: () => new CognitoFault("NotAuthorizedException", "User is disabled."),
  userNotFound: () => new CognitoFault("UserNotFoundException", "User does not exist."),
  /** ConfirmSignUp, ResendConfirmationCode, ForgotPassword and ConfirmForgotPassword word it this way. */
  usernameClientNotFound: () => new CognitoFault("UserNotFoundException", "Username/client id combination not found."),
  userNotConfirmed: () => new CognitoFault("UserNotConfirmedException", "User is not confirmed."),
  passwordResetRequired: () =>
    new CognitoFault("PasswordResetRequiredException", "Password reset required for the user"),
  codeMismatch: () =>
    new CognitoFault("CodeMismatchException", "Invalid verification code provided, please try again."),
  invalidParameter: (message: string) => new CognitoFault("InvalidParameterException", message),
  invalidPassword: (reason: string) =>
    new CognitoFault("InvalidPasswordException", `Password did not conform with policy: ${reason}`),
  invalidRefreshToken: () => new CognitoFault("NotAuthorizedException", "Invalid Refresh Token"),
  refreshTokenRevoked: () => new CognitoFault("NotAuthorizedException", "Refresh Token has been revoked"),
  refreshTokenExpired: () => new CognitoFault("NotAuthorizedException", "Refresh Token has expired"),
  invalidAccessToken: () => new CognitoFault("NotAuthorizedException", "Invalid Access Token"),
  accessTokenRevoked: () => new CognitoFault("NotAuthorizedException", "Access Token has been revoked"),
  accessTokenExpired: () => new CognitoFault("NotAuthorizedException", "Access Token has expired"),
  /**
   * A self-service operation with an access token that lacks aws.cognito.signin.user.admin (each operation's API
   * reference: "Must include a scope claim for aws.cognito.signin.user.admin"; Cognito's text, as re:Post quotes it).
   */
  accessTokenLacksScope: () => new CognitoFault("NotAuthorizedException", "Access Token does not have required scopes"),
  /** AdminInitiateAuth for an invited user whose temporary password is older than TemporaryPasswordValidityDays. */
  temporaryPasswordExpired: () =>
    new CognitoFault("NotAuthorizedException", "Temporary password has expired and must be reset by an administrator."),
  /** ForgotPassword for a user in FORCE_CHANGE_PASSWORD (invited, never signed in). */
  passwordNotResettable: () =>
    new CognitoFault("NotAuthorizedException", "User password cannot be reset in the current state."),
  /** A challenge answered with a Session that is unknown, used up, expired or another user's. */
  challengeSessionExpired: () =>
    new CognitoFault("NotAuthorizedException", "Invalid session for the user, session is expired."),
  internal: () => new CognitoFault("InternalErrorException", "An internal error occurred.", 500),
};

/** The body and status of an error response. */
export function errorResponse(error: CognitoFault): { status: number; body: { __type: string; message: string } } {
  return { status: error.status, body: { __type: error.type, message: error.message } };
}
