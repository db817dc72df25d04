import { fault } from "./errors";
import type { LocalPasswordPolicy } from "./cognito-local";

/** Cognito's default when a pool names no minimum. */
export const DEFAULT_MINIMUM_LENGTH = 8;

/**
 * Checks a proposed password against the pool's password policy the way Cognito does on SignUp, AdminCreateUser
 * (TemporaryPassword), AdminSetUserPassword, ChangePassword and ConfirmForgotPassword: the first unmet rule is
 * reported as InvalidPasswordException "Password did not conform with policy: …".
 */
export function assertPasswordConforms(password: unknown, policy: LocalPasswordPolicy | undefined): void {
  if (typeof password !== "string") return;
  const rules = policy ?? {};
  if (password.length < (rules.MinimumLength ?? DEFAULT_MINIMUM_LENGTH)) {
    throw fault.invalidPassword("Password not long enough");
  }
  if (rules.RequireLowercase && !/\p{Ll}/u.test(password)) {
    throw fault.invalidPassword("Password must have lowercase characters");
  }
  if (rules.RequireUppercase && !/\p{Lu}/u.test(password)) {
    throw fault.invalidPassword("Password must have uppercase characters");
  }
  if (rules.RequireNumbers && !/[0-9]/.test(password)) {
    throw fault.invalidPassword("Password must have numeric characters");
  }
  // Cognito's list of special characters: ^ $ * . [ ] { } ( ) ? " ! @ # % & / \ , > < ' : ; | _ ~ ` = + - and space.
  if (rules.RequireSymbols && !/[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+\- ]/.test(password)) {
    throw fault.invalidPassword("Password must have symbol characters");
  }
}
