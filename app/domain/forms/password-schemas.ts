import { z } from "zod";
import { CurrentPasswordSchema, EmailSchema, NewPasswordSchema, storableText } from "./field-schemas";
import { AuthenticatorCode } from "./two-step-schemas";

/** The password reset's first step: the address to mail a code to. */
export const RequestPasswordResetSchema = z.object({ email: EmailSchema });

/** The password reset's second step: the mailed code and the new password. */
export const ConfirmPasswordResetSchema = z.object({
  code: storableText("validation.codeRequired")
    .trim()
    .min(1, "validation.codeRequired")
    .max(64, "validation.inputError"),
  password: NewPasswordSchema,
});

/**
 * A signed-in member's password change; with the authenticator app's code when they use 2-step verification (the
 * verb refuses its absence then, as only the member's record says whether it is needed).
 */
export const PasswordChangeSchema = z.object({
  currentPassword: CurrentPasswordSchema,
  newPassword: NewPasswordSchema,
  code: AuthenticatorCode.optional(),
});
