import { z } from "zod";
import { COUNTRIES, OCCUPATIONS, Q1_OPTIONS, Q2_OPTIONS, Q3_OPTIONS } from "./form-choices";
import { JAPAN, JAPANESE_PREFECTURES } from "./prefectures";

/**
 * Form schemas shared by the browser (Conform) and the actions. Messages are keys of the "forms" namespace,
 * translated where they are shown, so errors follow the page's language.
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

export const SignInSchema = z.object({
  email: EmailSchema,
  // No length rule at sign-in: accounts from before 1 July 2021 may have shorter passwords.
  password: storableText().min(1, "validation.required").max(256, "validation.inputError"),
});

/** The Cognito pool's password policy: at least 8 characters, long passphrases welcome. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export const NewPasswordSchema = storableText()
  .min(1, "validation.required")
  .min(MIN_PASSWORD_LENGTH, "validation.passwordTooShort")
  .max(MAX_PASSWORD_LENGTH, "validation.tooLong");

const agreement = z.literal("on", { error: "validation.agree" });

export const SignUpSchema = z.object({
  email: EmailSchema,
  password: NewPasswordSchema,
  agreeIdTerms: agreement,
  agreeDataTerms: agreement,
  agreePrivacy: agreement,
});

export const ConfirmationCodeSchema = z.object({
  code: z
    .string({ error: "validation.codeRequired" })
    .trim()
    .min(1, "validation.codeRequired")
    .regex(/^\d{6}$/, "validation.codeFormat"),
});

const requiredText = (max: number) =>
  storableText().trim().min(1, "validation.required").max(max, "validation.tooLong");
const requiredChoice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: "validation.selectRequired" });
const choices = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values, { error: "validation.selectError" }), { error: "validation.selectRequired" })
    .min(1, "validation.selectRequired");

/** The profile fields, shared by sign-up's account-info step and the profile edit page. */
const PROFILE_FIELDS = {
  familyName: requiredText(50),
  givenName: requiredText(50),
  birthYear: z.coerce
    .number({ error: "validation.birthYear" })
    .int("validation.birthYear")
    .min(1900, "validation.birthYear")
    .max(new Date().getFullYear(), "validation.birthYear"),
  country: requiredChoice(COUNTRIES),
  prefecture: requiredText(50),
  occupation: requiredChoice(OCCUPATIONS),
  organization: requiredText(100),
  preferredLanguage: requiredChoice(["ja", "en"] as const),
};

/** Membership information on /my/profile/edit/: the profile fields alone, with sign-up's rules and messages. */
export const ProfileSchema = z.object(PROFILE_FIELDS);
export type Profile = z.infer<typeof ProfileSchema>;

/** Sign-up's account-info step: the profile fields and the questionnaire (also the API's user registration). */
export const AccountInfoFields = z.object({
  ...PROFILE_FIELDS,
  q1: z.enum(Q1_OPTIONS, { error: "validation.selectError" }).default("none"),
  q2: choices(Q2_OPTIONS),
  q2Other: storableText().trim().max(200, "validation.tooLong").optional(),
  q3: choices(Q3_OPTIONS),
  q3Other: storableText().trim().max(200, "validation.tooLong").optional(),
});

/** "Other" asks for the specific reason. */
export function refineAccountInfo(
  value: { q2: string[]; q2Other?: string | undefined; q3: string[]; q3Other?: string | undefined },
  context: z.RefinementCtx,
) {
  if (value.q2.includes("other") && !value.q2Other) {
    context.addIssue({ code: "custom", path: ["q2Other"], message: "validation.required" });
  }
  if (value.q3.includes("other") && !value.q3Other) {
    context.addIssue({ code: "custom", path: ["q3Other"], message: "validation.required" });
  }
}

export const AccountInfoSchema = AccountInfoFields.superRefine(refineAccountInfo);
export type AccountInfo = z.infer<typeof AccountInfoSchema>;

/**
 * The forms ask the prefecture twice: a list of Japan's 47 (`prefecture`) and free text for anywhere else (`region`).
 * Without JavaScript both are on the page and the country decides which one counts; with it only that one is shown.
 * Either way the profile gets the one `prefecture` that the member API and the CSV import send (free text there,
 * for the callers that already send "Tokyo").
 */
const PREFECTURE_FORM_FIELDS = {
  prefecture: z.enum(JAPANESE_PREFECTURES, { error: "validation.selectError" }).optional(),
  region: storableText().trim().max(50, "validation.tooLong").optional(),
};

type PrefectureFormValue = { country: string; prefecture?: string | undefined; region?: string | undefined };

function requirePrefectureForCountry(value: PrefectureFormValue, context: z.RefinementCtx) {
  if (value.country === JAPAN && !value.prefecture) {
    context.addIssue({ code: "custom", path: ["prefecture"], message: "validation.selectRequired" });
  } else if (value.country !== JAPAN && !value.region) {
    context.addIssue({ code: "custom", path: ["region"], message: "validation.required" });
  }
}

/**
 * A profile form's answers as the profile stores them: the prefecture is the answer the country calls for (present,
 * as the form's schema required it). Not a transform in the schema: Conform reads the schema's constraints for the
 * browser, and cannot read through one.
 */
export function withStoredPrefecture<Value extends PrefectureFormValue>({ region, ...value }: Value) {
  return { ...value, prefecture: (value.country === JAPAN ? value.prefecture : region) ?? "" };
}

/** Membership information on /my/profile/edit/; withStoredPrefecture makes its value a Profile. */
export const ProfileFormSchema = z
  .object({ ...PROFILE_FIELDS, ...PREFECTURE_FORM_FIELDS })
  .superRefine(requirePrefectureForCountry);

/** Sign-up's account-info step; withStoredPrefecture makes its value an AccountInfo. */
export const AccountInfoFormSchema = AccountInfoFields.extend(PREFECTURE_FORM_FIELDS)
  .superRefine(refineAccountInfo)
  .superRefine(requirePrefectureForCountry);

export const RequestPasswordResetSchema = z.object({ email: EmailSchema });

export const ConfirmPasswordResetSchema = z.object({
  code: storableText("validation.codeRequired")
    .trim()
    .min(1, "validation.codeRequired")
    .max(64, "validation.inputError"),
  // Never trimmed: the member's password is exactly what they typed (or pasted).
  password: NewPasswordSchema,
});

/** An invited member's first sign-in: their own password instead of the temporary one Cognito mailed. */
export const FirstPasswordSchema = z.object({
  // Never trimmed: the member's password is exactly what they typed (or pasted).
  password: NewPasswordSchema,
});

export const PasswordChangeSchema = z.object({
  // No length rule on the current password: accounts from before 1 July 2021 may have shorter ones.
  currentPassword: storableText().min(1, "validation.required").max(MAX_PASSWORD_LENGTH, "validation.inputError"),
  newPassword: NewPasswordSchema,
});
