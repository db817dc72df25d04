import { expect, test } from "vitest";
import type { z } from "zod";
import { apiEndpoint } from "~/api/contract";
import { ConfirmPasswordResetSchema, PasswordChangeSchema } from "~/domain/forms/password-schemas";
import { ProfileSchema } from "~/domain/forms/profile-schemas";
import { SignInSchema } from "~/domain/forms/sign-in-schemas";
import { AccountInfoSchema, SignUpSchema } from "~/domain/forms/sign-up-schemas";
import { WithdrawalApiSchema, WithdrawalConfirmSchema } from "~/domain/forms/withdrawal-schemas";
import { RESOURCES } from "~/i18n/resources";

const PROFILE = {
  familyName: "山田",
  givenName: "花子",
  birthYear: "1990",
  country: "JP",
  prefecture: "東京都",
  occupation: "architect",
  organization: "Example",
  preferredLanguage: "ja",
};
const ACCOUNT_INFO = { ...PROFILE, q2: ["other"], q2Other: "x", q3: ["other"], q3Other: "y" };

// Every field a member types, in a valid form around it: [schema, valid input, field under test].
const FIELDS: [string, z.ZodType, Record<string, unknown>, string][] = [
  ["sign-in password", SignInSchema, { email: "a@example.jp", password: "secret" }, "password"],
  [
    "sign-up password",
    SignUpSchema,
    { email: "a@example.jp", password: "long-enough", agreeIdTerms: "on", agreeDataTerms: "on", agreePrivacy: "on" },
    "password",
  ],
  ["reset code", ConfirmPasswordResetSchema, { code: "123456", password: "long-enough" }, "code"],
  [
    "current password",
    PasswordChangeSchema,
    { currentPassword: "secret", newPassword: "long-enough" },
    "currentPassword",
  ],
  ...(["familyName", "givenName", "prefecture", "organization"] as const).map(
    (field): [string, z.ZodType, Record<string, unknown>, string] => [
      `profile ${field}`,
      ProfileSchema,
      PROFILE,
      field,
    ],
  ),
  ["account info q2Other", AccountInfoSchema, ACCOUNT_INFO, "q2Other"],
  ["account info q3Other", AccountInfoSchema, ACCOUNT_INFO, "q3Other"],
  ["API registration familyName", apiEndpoint("registerUser").body, { ...ACCOUNT_INFO, birthYear: 1990 }, "familyName"],
  ["API device refresh token", apiEndpoint("registerUserDevice").body, { refreshToken: "token" }, "refreshToken"],
  [
    "withdrawal detail",
    WithdrawalConfirmSchema,
    { reason: "other", detail: "x", agreeDisclaimer: "on", password: "p" },
    "detail",
  ],
  [
    "API withdrawal password",
    WithdrawalApiSchema,
    { reason: "price", agreeDisclaimer: true, password: "p" },
    "password",
  ],
];

test.each(FIELDS)(
  "%s refuses NUL and lone surrogates with its own message, and takes any other text",
  (_name, schema, valid, field) => {
    expect(schema.safeParse(valid).success).toBe(true);
    const original = String(valid[field]);
    for (const unstorable of ["\u0000", "\ud800", "\udfff", "a\ud83d"]) {
      const result = schema.safeParse({ ...valid, [field]: `${original}${unstorable}` });
      expect(result.success, JSON.stringify(unstorable)).toBe(false);
      const messages = result.error?.issues
        .filter((issue) => issue.path.join(".") === field)
        .map((issue) => issue.message);
      expect(messages).toEqual(["validation.invalidCharacters"]);
    }
    // Paired surrogates (emoji), right-to-left and full-width text are ordinary characters.
    for (const fine of ["😀", "مرحبا", "ＡＢＣ"]) {
      expect(schema.safeParse({ ...valid, [field]: `${original}${fine}` }).success, fine).toBe(true);
    }
  },
);

test("the message exists in both languages", () => {
  expect(RESOURCES.ja.forms.validation.invalidCharacters).toMatch(/\S/);
  expect(RESOURCES.en.forms.validation.invalidCharacters).toMatch(/\S/);
});
