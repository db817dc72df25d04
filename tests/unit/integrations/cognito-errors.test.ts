import { expect, test } from "vitest";
import { DOMAIN_ERROR_CODES, DomainError, toDomainError, withDomainErrors } from "~/domain/domain-error.server";
import { messageKeyOf } from "~/errors/error-responses.server";
import { RESOURCES } from "~/i18n/resources";
import { IdentityError, toIdentityError } from "~/integrations/cognito/cognito-errors.server";
import { MailUnavailableError } from "~/integrations/mailer.server";

function named(name: string): Error {
  const error = new Error("from Cognito");
  error.name = name;
  return error;
}

test("every domain error code has a message in both languages", () => {
  for (const code of DOMAIN_ERROR_CODES) {
    const [namespace, path] = messageKeyOf(new DomainError(code)).split(":") as [string, string];
    for (const locale of ["ja", "en"] as const) {
      const text = path
        .split(".")
        .reduce<unknown>(
          (node, part) => (node as Record<string, unknown> | undefined)?.[part],
          (RESOURCES[locale] as Record<string, unknown>)[namespace],
        );
      expect(typeof text, `${code} in ${locale}`).toBe("string");
    }
  }
});

test.each([
  ["NotAuthorizedException", "AdminInitiateAuth", "invalidCredentials", "loginFailed"],
  ["UserNotFoundException", "AdminInitiateAuth", "userNotFound", "loginFailed"],
  ["UserNotConfirmedException", "AdminInitiateAuth", "userNotConfirmed", "loginFailed"],
  ["NotAuthorizedException", "ChangePassword", "currentPasswordMismatch", "currentPasswordMismatch"],
  ["CodeMismatchException", "ConfirmSignUp", "codeMismatch", "codeMismatch"],
  ["ExpiredCodeException", "ConfirmForgotPassword", "codeExpired", "codeMismatch"],
  ["CodeMismatchException", "AdminRespondToAuthChallenge", "authenticatorCodeMismatch", "authenticatorCodeMismatch"],
  ["ExpiredCodeException", "AdminRespondToAuthChallenge", "authenticatorCodeMismatch", "authenticatorCodeMismatch"],
  ["CodeMismatchException", "VerifySoftwareToken", "authenticatorCodeMismatch", "authenticatorCodeMismatch"],
  ["EnableSoftwareTokenMFAException", "VerifySoftwareToken", "authenticatorCodeMismatch", "authenticatorCodeMismatch"],
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
  expect(messageKeyOf(toDomainError(mapped)!)).toBe(`toasts:${messageKey}`);
});

test("one error name, several meanings: Cognito's exact message picks the invitation rows, anything else the general one", () => {
  const refusal = (name: string, message: string) => Object.assign(new Error(message), { name });
  const expired = "Temporary password has expired and must be reset by an administrator.";
  const notResettable = "User password cannot be reset in the current state.";
  expect(toIdentityError(refusal("NotAuthorizedException", expired), "AdminInitiateAuth").code).toBe(
    "temporaryPasswordExpired",
  );
  expect(messageKeyOf(new DomainError("temporaryPasswordExpired"))).toBe("toasts:temporaryPasswordExpired");
  expect(toIdentityError(refusal("NotAuthorizedException", notResettable), "ForgotPassword").code).toBe(
    "invitationPending",
  );
  // The same message from another operation, or another message from the same one, is an ordinary refusal.
  expect(toIdentityError(refusal("NotAuthorizedException", expired), "ForgotPassword").code).toBe("invalidCredentials");
  expect(toIdentityError(refusal("NotAuthorizedException", "User is disabled."), "ForgotPassword").code).toBe(
    "invalidCredentials",
  );
  expect(
    toIdentityError(refusal("NotAuthorizedException", "Incorrect username or password."), "AdminInitiateAuth").code,
  ).toBe("invalidCredentials");
  const session = "Invalid session for the user, session is expired.";
  expect(toIdentityError(refusal("NotAuthorizedException", session), "AdminRespondToAuthChallenge").code).toBe(
    "challengeExpired",
  );
  expect(toIdentityError(named("UnsupportedUserStateException"), "AdminCreateUser").code).toBe("invitationNotPending");
});

test("time-outs, network failures and unknown errors mean unavailable, never a crash", () => {
  expect(toIdentityError(named("TimeoutError"), "SignUp").code).toBe("unavailable");
  expect(toIdentityError(named("AbortError"), "AdminInitiateAuth").code).toBe("unavailable");
  expect(toIdentityError(new TypeError("fetch failed"), "SignUp").code).toBe("unavailable");
  expect(toIdentityError("a string", "SignUp").code).toBe("unavailable");
});

test("withDomainErrors: the adapters' failures reach the domain as DomainErrors with the adapter's error as cause", async () => {
  const refused = new IdentityError("codeExpired", "ConfirmSignUp");
  const bug = new TypeError("a bug");
  const adapter = withDomainErrors({
    confirm: async (code: string) => {
      if (code === "old") throw refused;
      if (code === "bug") throw bug;
      return `confirmed ${code}`;
    },
    send: async () => {
      throw new MailUnavailableError("smtp down");
    },
  });
  await expect(adapter.confirm("123456")).resolves.toBe("confirmed 123456");
  const failure = await adapter.confirm("old").catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(DomainError);
  expect(failure).toMatchObject({ code: "codeExpired", cause: refused });
  await expect(adapter.send()).rejects.toMatchObject({ name: "DomainError", code: "mailUnavailable" });
  // Not an adapter's verdict: a bug stays what it is.
  await expect(adapter.confirm("bug")).rejects.toBe(bug);
});
