import { z } from "zod";
import { CurrentPasswordSchema, storableText } from "./field-schemas";

/** The authenticator app's 6 digits; spaces the app shows in the middle ("123 456") are dropped. */
export const AuthenticatorCode = z
  .string({ error: "validation.authenticatorCodeRequired" })
  .transform((value) => value.replace(/\s/g, ""))
  .pipe(
    z
      .string()
      .min(1, "validation.authenticatorCodeRequired")
      .regex(/^\d{6}$/, "validation.codeFormat"),
  );

/** The first code, which turns on 2-step verification, and the sign-in's code step. */
export const AuthenticatorCodeSchema = z.object({ code: AuthenticatorCode });

/**
 * The code step with a recovery code: the code and the password again (the app vouches for the second factor and
 * needs a password sign-in at Cognito for it, app/domain/account/sign-in.server.ts). Case, spaces and hyphens do not
 * matter; the length cap only keeps junk out.
 */
export const RecoveryCodeSignInSchema = z.object({
  recoveryCode: storableText("validation.recoveryCodeRequired")
    .trim()
    .min(1, "validation.recoveryCodeRequired")
    .max(64, "validation.tooLong"),
  password: CurrentPasswordSchema,
});
