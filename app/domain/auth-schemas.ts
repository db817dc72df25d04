import { z } from "zod";

/**
 * Form schemas shared by the browser (Conform) and the actions. Messages are keys of the "forms" namespace,
 * translated where they are shown, so errors follow the page's language.
 */
export const EmailSchema = z
  .string({ error: "validation.required" })
  .trim()
  .min(1, "validation.required")
  .max(254, "validation.email")
  .pipe(z.email("validation.email"));

export const SignInSchema = z.object({
  email: EmailSchema,
  // No length rule at sign-in: accounts from before 1 July 2021 may have shorter passwords.
  password: z.string({ error: "validation.required" }).min(1, "validation.required").max(256, "validation.inputError"),
});
