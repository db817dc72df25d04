import { z } from "zod";
import { storableText } from "./field-schemas";
import { COUNTRIES, OCCUPATIONS } from "./form-choices";
import { JAPAN, JAPANESE_PREFECTURES } from "./prefectures";

const requiredText = (max: number) =>
  storableText().trim().min(1, "validation.required").max(max, "validation.tooLong");
const requiredChoice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: "validation.selectRequired" });

/** The profile fields, shared by sign-up's account-info step and the profile edit page. */
export const PROFILE_FIELDS = {
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

/**
 * The forms ask the prefecture twice: a list of Japan's 47 (`prefecture`) and free text for anywhere else (`region`).
 * Without JavaScript both are on the page and the country decides which one counts; with it only that one is shown.
 * Either way the profile gets the one `prefecture` that the member API and the CSV import send (free text there,
 * for the callers that already send "Tokyo").
 */
export const PREFECTURE_FORM_FIELDS = {
  prefecture: z.enum(JAPANESE_PREFECTURES, { error: "validation.selectError" }).optional(),
  region: storableText().trim().max(50, "validation.tooLong").optional(),
};

type PrefectureFormValue = { country: string; prefecture?: string | undefined; region?: string | undefined };

export function requirePrefectureForCountry(value: PrefectureFormValue, context: z.RefinementCtx) {
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

/**
 * Membership information on /my/profile/edit/, and the newsletter choice (a checkbox: "on", or absent when
 * unticked); withStoredPrefecture makes its value a Profile.
 */
export const ProfileFormSchema = z
  .object({
    ...PROFILE_FIELDS,
    ...PREFECTURE_FORM_FIELDS,
    receivesNewsletter: z.literal("on", { error: "validation.selectError" }).optional(),
  })
  .superRefine(requirePrefectureForCountry);
