import { z } from "zod";
import { CurrentPasswordSchema, EmailSchema, NewPasswordSchema } from "./field-schemas";

/** The sign-in form. */
export const SignInSchema = z.object({ email: EmailSchema, password: CurrentPasswordSchema });

/** An invited member's first sign-in: their own password instead of the temporary one Cognito mailed. */
export const FirstPasswordSchema = z.object({ password: NewPasswordSchema });
