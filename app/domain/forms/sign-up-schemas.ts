import { z } from "zod";
import { EmailSchema, NewPasswordSchema, storableText } from "./field-schemas";
import { Q1_OPTIONS, Q2_OPTIONS, Q3_OPTIONS } from "./form-choices";
import { PREFECTURE_FORM_FIELDS, PROFILE_FIELDS, requirePrefectureForCountry } from "./profile-schemas";

const agreement = z.literal("on", { error: "validation.agree" });
const choices = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values, { error: "validation.selectError" }), { error: "validation.selectRequired" })
    .min(1, "validation.selectRequired");

/** Sign-up's first step: the address, the password, and the three agreements. */
export const SignUpSchema = z.object({
  email: EmailSchema,
  password: NewPasswordSchema,
  agreeIdTerms: agreement,
  agreeDataTerms: agreement,
  agreePrivacy: agreement,
});

/** Sign-up's second step: the code mailed to the address. */
export const ConfirmationCodeSchema = z.object({
  code: z
    .string({ error: "validation.codeRequired" })
    .trim()
    .min(1, "validation.codeRequired")
    .regex(/^\d{6}$/, "validation.codeFormat"),
});

/** Sign-up's "send the code again": a button alone, nothing typed to check. */
export const CodeResendSchema = z.object({});

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

/** Sign-up's account-info step; withStoredPrefecture makes its value an AccountInfo. */
export const AccountInfoFormSchema = AccountInfoFields.extend(PREFECTURE_FORM_FIELDS)
  .superRefine(refineAccountInfo)
  .superRefine(requirePrefectureForCountry);
