import { z } from "zod";
import { CurrentPasswordSchema } from "./field-schemas";
import { AuthenticatorCode } from "./two-step-schemas";

/**
 * The password step before a sensitive change: the member's current password, and the authenticator app's code for
 * a member with 2-step verification (the page asks for it beside the password; the action requires it then).
 */
export const ReauthenticationSchema = z.object({
  password: CurrentPasswordSchema,
  code: AuthenticatorCode.optional(),
});
