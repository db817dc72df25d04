import { expect, test } from "vitest";
import jaToasts from "../../locales/ja/toasts.json";
import { IDENTITY_ERROR_MESSAGES, IdentityError, toIdentityError } from "~/integrations/cognito/cognito-errors.server";

function named(name: string): Error {
  const error = new Error("from Cognito");
  error.name = name;
  return error;
}

test("every identity error code has a message in the toasts namespace", () => {
  for (const key of Object.values(IDENTITY_ERROR_MESSAGES)) expect(Object.keys(jaToasts)).toContain(key);
});

test.each([
  ["NotAuthorizedException", "AdminInitiateAuth", "invalidCredentials", "loginFailed"],
  ["UserNotFoundException", "AdminInitiateAuth", "userNotFound", "loginFailed"],
  ["UserNotConfirmedException", "AdminInitiateAuth", "userNotConfirmed", "loginFailed"],
  ["NotAuthorizedException", "ChangePassword", "currentPasswordMismatch", "currentPasswordMismatch"],
  ["CodeMismatchException", "ConfirmSignUp", "codeMismatch", "codeMismatch"],
  ["ExpiredCodeException", "ConfirmForgotPassword", "codeExpired", "codeMismatch"],
  ["UsernameExistsException", "SignUp", "usernameExists", "emailUnavailable"],
  ["InvalidPasswordException", "SignUp", "invalidPassword", "invalidPassword"],
  ["InvalidParameterException", "ResendConfirmationCode", "alreadyConfirmed", "codeMismatch"],
  ["InvalidParameterException", "SignUp", "invalidInput", "invalidInput"],
  ["TooManyRequestsException", "AdminInitiateAuth", "signInThrottled", "loginAttemptLimitExceeded"],
  ["LimitExceededException", "AdminInitiateAuth", "signInThrottled", "loginAttemptLimitExceeded"],
  ["TooManyFailedAttemptsException", "ConfirmSignUp", "throttled", "attemptLimitExceeded"],
  ["LimitExceededException", "ForgotPassword", "throttled", "attemptLimitExceeded"],
  ["InternalErrorException", "SignUp", "unavailable", "identityUnavailable"],
] as const)("%s in %s is %s (%s)", (name, operation, code, messageKey) => {
  const mapped = toIdentityError(named(name), operation);
  expect(mapped).toBeInstanceOf(IdentityError);
  expect(mapped.code).toBe(code);
  expect(mapped.messageKey).toBe(messageKey);
});

test("time-outs, network failures and unknown errors mean unavailable, never a crash", () => {
  expect(toIdentityError(named("TimeoutError"), "SignUp").code).toBe("unavailable");
  expect(toIdentityError(named("AbortError"), "AdminInitiateAuth").code).toBe("unavailable");
  expect(toIdentityError(new TypeError("fetch failed"), "SignUp").code).toBe("unavailable");
  expect(toIdentityError("a string", "SignUp").code).toBe("unavailable");
});
