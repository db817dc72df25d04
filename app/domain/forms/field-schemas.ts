import { z } from "zod";

/*
 * The field schemas several forms share (the member's pages, the member API, the CSV import, the staff's pages).
 * Messages are keys of the "forms" namespace, translated where they are shown, so errors follow the page's language.
 */

/**
 * NUL and lone surrogates (JSON's "\ud800") are refused with their own message in every field a member types:
 * PostgreSQL's text cannot hold NUL, and UTF-8 cannot carry a lone surrogate, so PostgreSQL and Cognito would store
 * something other than what was checked, or fail.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const UNSTORABLE_CHARACTERS = /\u0000|[\uD800-\uDFFF]/u;

/** A string of storable characters: the start of every free-text field's schema (add trim, lengths after it). */
export function storableText(requiredMessage = "validation.required") {
  return z
    .string({ error: requiredMessage })
    .refine((value) => !UNSTORABLE_CHARACTERS.test(value), { message: "validation.invalidCharacters", abort: true });
}

// Lower-cased: Cognito user pools match usernames case-insensitively, and so must everything keyed by e-mail here.
export const EmailSchema = z
  .string({ error: "validation.required" })
  .trim()
  .toLowerCase()
  .min(1, "validation.required")
  .max(254, "validation.email")
  .pipe(z.email("validation.email"));

/** The Cognito pool's password policy: at least 8 characters, long passphrases welcome. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

/** A password the member chooses. Never trimmed: the member's password is exactly what they typed (or pasted). */
export const NewPasswordSchema = storableText()
  .min(1, "validation.required")
  .min(MIN_PASSWORD_LENGTH, "validation.passwordTooShort")
  .max(MAX_PASSWORD_LENGTH, "validation.tooLong");

/**
 * The password the member has (sign-in, and again to change it or to leave). No length rule: accounts from before
 * 1 July 2021 may have shorter ones.
 */
export const CurrentPasswordSchema = storableText()
  .min(1, "validation.required")
  .max(MAX_PASSWORD_LENGTH, "validation.inputError");
