import { z } from "zod";
import { EmailSchema, storableText } from "./field-schemas";

/** A passkey's name, as the member types it; the list's input has the same limit. */
export const MAX_PASSKEY_NAME_LENGTH = 60;

/** WebAuthn credential ids are at most 1,023 bytes: in base64url, 1,364 characters. */
const CredentialIdSchema = z
  .string({ error: "validation.required" })
  .min(1, "validation.required")
  .max(1364, "validation.inputError")
  .regex(/^[A-Za-z0-9_-]+$/, "validation.inputError");

/**
 * The browser's JSON result of a WebAuthn ceremony (RegistrationResponseJSON or AuthenticationResponseJSON), as the
 * passkey script puts it in the form's hidden input. Only its shape is checked here: Cognito checks everything
 * that matters (challenge, origin, signature).
 */
const CeremonyResultSchema = z
  .string({ error: "validation.required" })
  .max(64_000, "validation.inputError")
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: "custom", message: "validation.inputError" });
      return z.NEVER;
    }
  })
  .pipe(
    z.looseObject(
      { id: CredentialIdSchema, type: z.literal("public-key"), response: z.looseObject({}) },
      { error: "validation.inputError" },
    ),
  );

/** "Add a passkey", second post: the new credential for CompleteWebAuthnRegistration. */
export const PasskeyRegistrationSchema = z.object({ credential: CeremonyResultSchema });

/** Renaming one passkey; an empty name gives it back the browser and device it was made on. */
export const PasskeyRenameSchema = z.object({
  credentialId: CredentialIdSchema,
  name: storableText().trim().max(MAX_PASSKEY_NAME_LENGTH, "validation.tooLong").optional(),
});

/** Deleting one passkey. */
export const PasskeyDeleteSchema = z.object({ credentialId: CredentialIdSchema });

/** "Log in with a passkey", first post: the address typed, for Cognito's WEB_AUTHN challenge. */
export const PasskeySignInStartSchema = z.object({ email: EmailSchema });

/** Passkey autofill's first post: the id of the passkey the member picked, standing for the address. */
export const PasskeyAutofillPickSchema = z.object({ credentialId: CredentialIdSchema });

/** The second post of either: the browser's assertion answering that challenge. */
export const PasskeySignInAnswerSchema = z.object({ credential: CeremonyResultSchema });
