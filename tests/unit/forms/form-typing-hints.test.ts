import { getZodConstraint } from "@conform-to/zod/v4";
import { expect, test } from "vitest";
import { EmailChangeSchema } from "~/domain/forms/email-change-schema";
import {
  ConfirmPasswordResetSchema,
  PasswordChangeSchema,
  RequestPasswordResetSchema,
} from "~/domain/forms/password-schemas";
import { ProfileFormSchema } from "~/domain/forms/profile-schemas";
import { ReauthenticationSchema } from "~/domain/forms/reauthentication-schema";
import { FirstPasswordSchema, SignInSchema } from "~/domain/forms/sign-in-schemas";
import { AccountInfoFormSchema, ConfirmationCodeSchema, SignUpSchema } from "~/domain/forms/sign-up-schemas";
import { AuthenticatorCodeSchema, RecoveryCodeSignInSchema } from "~/domain/forms/two-step-schemas";
import { WithdrawalConfirmSchema, WithdrawalFormSchema } from "~/domain/forms/withdrawal-schemas";
import { countryChoices } from "~/components/form/country-choices";
import { prefectureChoices } from "~/components/form/prefecture-choices";
import type { Locale } from "~/i18n/locales";
import { translatorFor } from "~/i18n/translator.server";
import EmailUpdatePage from "~/routes/default/email-update";
import ForgotPasswordPage from "~/routes/default/auth-forgot-password";
import NewPasswordPage from "~/routes/default/auth-new-password";
import TwoStepPage from "~/routes/default/auth-two-step";
import SignInPage from "~/routes/default/auth-sign-in";
import SignUpPage from "~/routes/default/auth-sign-up";
import EmailEditPage from "~/routes/member/my-email-edit";
import AuthenticatorPage from "~/routes/member/my-security-authenticator";
import PasswordEditPage from "~/routes/member/my-password-edit";
import ProfileEditPage from "~/routes/member/my-profile-edit";
import ReauthenticationPage from "~/routes/member/my-reauthentication";
import WithdrawalPage from "~/routes/member/my-withdrawal";
import { type PageUnderTest, renderPage } from "../../support/page-render";

/**
 * Every member form, at every step, as the server renders it (what a browser without JavaScript gets, and what a
 * browser with it starts from): each text field says what it holds (`autocomplete`), which keyboard it wants
 * (`inputmode`) and what Enter does (`enterkeyhint`: "next" until the form's last text field, then done, go or
 * send; "enter" in a text area, where Enter is a new line), and each select says what autofill may put in it.
 * Checkboxes and radios take none of these (HTML gives them no autofill or keyboard), hidden fields are not fields.
 */

const COUNTRIES = countryChoices("en", "Other");
const english = translatorFor("en");
// The loaders name them in the page's language; these pages are rendered with the English names.
const PREFECTURES = prefectureChoices((key) => english(`prefectures:${key}`));
const DEVICE = {
  id: "d1",
  deviceName: "iPhone",
  browser: "Safari",
  lastLoginAt: "2026-01-01T00:00:00Z",
  current: false,
};

const WITHDRAWAL_LOADER_DATA = {
  constraints: { reasons: getZodConstraint(WithdrawalFormSchema), confirm: getZodConstraint(WithdrawalConfirmSchema) },
};

const PAGES: PageUnderTest[] = [
  { name: "sign-in", component: SignInPage, loaderData: { view: "form", constraint: getZodConstraint(SignInSchema) } },
  {
    name: "sign-in, device limit",
    component: SignInPage,
    loaderData: { view: "deviceLimit", deviceLimit: 1, devices: [DEVICE] },
  },
  {
    name: "sign-up, credentials",
    component: SignUpPage,
    loaderData: { step: "credentials", constraint: getZodConstraint(SignUpSchema) },
  },
  {
    name: "sign-up, code",
    component: SignUpPage,
    loaderData: { step: "code", email: "a@example.jp", constraint: getZodConstraint(ConfirmationCodeSchema) },
  },
  {
    name: "sign-up, account",
    component: SignUpPage,
    loaderData: {
      step: "account",
      countries: COUNTRIES,
      prefectures: PREFECTURES,
      constraint: getZodConstraint(AccountInfoFormSchema),
    },
  },
  {
    name: "forgot password, request",
    component: ForgotPasswordPage,
    loaderData: { view: "request", constraint: getZodConstraint(RequestPasswordResetSchema) },
  },
  {
    name: "forgot password, confirm",
    component: ForgotPasswordPage,
    loaderData: {
      view: "confirm",
      email: "a@example.jp",
      resent: false,
      constraint: getZodConstraint(ConfirmPasswordResetSchema),
    },
  },
  {
    name: "first sign-in, new password",
    component: NewPasswordPage,
    loaderData: { email: "a@example.jp", constraint: getZodConstraint(FirstPasswordSchema) },
  },
  {
    name: "sign-in, authenticator code",
    component: TwoStepPage,
    loaderData: {
      view: "code",
      email: "a@example.jp",
      recoveryCodesLeft: 9,
      otherMethodUrl: "/auth/sign-in/two-step/?method=recovery-code",
      constraint: getZodConstraint(AuthenticatorCodeSchema),
    },
  },
  {
    name: "sign-in, recovery code",
    component: TwoStepPage,
    loaderData: {
      view: "recovery",
      email: "a@example.jp",
      recoveryCodesLeft: 9,
      otherMethodUrl: "/auth/sign-in/two-step/",
      constraint: getZodConstraint(RecoveryCodeSignInSchema),
    },
  },
  {
    name: "2-step verification, setup",
    component: AuthenticatorPage,
    loaderData: {
      enabled: false,
      recoveryCodesLeft: 0,
      fewRecoveryCodes: false,
      setup: { qrSvg: "<svg></svg>", key: "ABCD EFGH" },
      constraint: getZodConstraint(AuthenticatorCodeSchema),
    },
  },
  {
    name: "profile edit",
    component: ProfileEditPage,
    loaderData: {
      filled: true,
      defaultValue: { country: "JP" },
      countries: COUNTRIES,
      prefectures: PREFECTURES,
      constraint: getZodConstraint(ProfileFormSchema),
    },
  },
  {
    name: "e-mail edit",
    component: EmailEditPage,
    loaderData: {
      sent: false,
      currentEmail: "a@example.jp",
      typedEmail: "b@example.jp",
      constraint: getZodConstraint(EmailChangeSchema),
    },
  },
  { name: "e-mail update", component: EmailUpdatePage, loaderData: { state: "confirm" } },
  {
    name: "password edit",
    component: PasswordEditPage,
    loaderData: { constraint: getZodConstraint(PasswordChangeSchema) },
  },
  {
    name: "password step",
    component: ReauthenticationPage,
    loaderData: { constraint: getZodConstraint(ReauthenticationSchema) },
  },
  { name: "cancellation, reason", component: WithdrawalPage, loaderData: WITHDRAWAL_LOADER_DATA },
  {
    name: "cancellation, confirmation",
    component: WithdrawalPage,
    loaderData: WITHDRAWAL_LOADER_DATA,
    actionData: { step: "confirm", answers: { reason: "other", detail: "Moving" } },
  },
];

type Control = { tag: string; attributes: Map<string, string> };

/** The controls of each <form> in the markup, in document order. */
function formsOf(html: string): Control[][] {
  return [...html.matchAll(/<form[\s>][\s\S]*?<\/form>/g)].map(([form]) =>
    [...form.matchAll(/<(input|select|textarea)(\s[^>]*)?>/g)].map(([, tag, attributes = ""]) => ({
      tag: tag!,
      attributes: new Map(
        // HTML attribute names are case-insensitive; React writes some in camelCase (autoComplete).
        [...attributes.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map(([, name, value = ""]) => [
          name!.toLowerCase(),
          value,
        ]),
      ),
    })),
  );
}

const NOT_TYPED = new Set(["hidden", "checkbox", "radio", "submit", "button"]);
const isTextEntry = (control: Control) =>
  control.tag === "textarea" || (control.tag === "input" && !NOT_TYPED.has(control.attributes.get("type") ?? "text"));

/** Every way a field misses the rule, as "name: problem". */
function problemsOf(form: Control[]): string[] {
  const problems: string[] = [];
  const textEntries = form.filter(isTextEntry);
  for (const control of form) {
    const name = control.attributes.get("name") ?? control.attributes.get("id") ?? control.tag;
    const autocomplete = control.attributes.get("autocomplete");
    if (control.tag === "select" || isTextEntry(control)) {
      if (!autocomplete) problems.push(`${name}: no autocomplete`);
    }
    if (!isTextEntry(control)) continue;
    if (!control.attributes.get("inputmode")) problems.push(`${name}: no inputmode`);
    const hint = control.attributes.get("enterkeyhint");
    const expected =
      control.tag === "textarea"
        ? ["enter"]
        : control === textEntries.at(-1) ||
            textEntries.slice(textEntries.indexOf(control) + 1).every((next) => next.tag === "textarea")
          ? ["done", "go", "send"]
          : ["next"];
    if (!hint || !expected.includes(hint))
      problems.push(`${name}: enterkeyhint ${hint} (expected ${expected.join("/")})`);
  }
  return problems;
}

for (const page of PAGES) {
  test(`every field of the ${page.name} form has autocomplete, inputmode and enterkeyhint`, () => {
    for (const locale of ["ja", "en"] as const) {
      const forms = formsOf(renderPage(page, locale));
      expect(forms.length, "the page renders its forms").toBeGreaterThan(0);
      expect(forms.flatMap(problemsOf)).toEqual([]);
    }
  });
}

test("the walk notices a field without hints", () => {
  const [form] = formsOf(
    '<form><input name="email" type="email"><input name="password" type="password" autocomplete="current-password" inputmode="text" enterkeyhint="next"><select name="country"></select></form>',
  );
  expect(problemsOf(form!)).toEqual([
    "email: no autocomplete",
    "email: no inputmode",
    "email: enterkeyhint undefined (expected next)",
    "password: enterkeyhint next (expected done/go/send)",
    "country: no autocomplete",
  ]);
});

test("the profile forms offer Japan's 47 prefectures in JIS order, in the page's language, and free text for elsewhere", () => {
  const html = renderPage(
    PAGES.find((page) => page.name === "profile edit")!,
    "en",
  );
  const prefectureList = /<select[^>]*name="prefecture"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? "";
  const options = [...prefectureList.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map(
    ([, value, label]) => [value, label],
  );
  expect(options).toHaveLength(48);
  expect(options[1]).toEqual(["北海道", "Hokkaido"]);
  expect(options[13]).toEqual(["東京都", "Tokyo"]);
  expect(options[47]).toEqual(["沖縄県", "Okinawa"]);
  // Without JavaScript the free-text field is there too, each saying whom it is for.
  expect(html).toMatch(/<input[^>]*name="region"/);
  expect(html).toContain("If you live outside Japan");
});

test("sign-up's agreements name each document once, as a link inside a sentence that reads naturally", () => {
  const page = PAGES.find((candidate) => candidate.name === "sign-up, credentials")!;
  const labelText = (locale: Locale) =>
    [...renderPage(page, locale).matchAll(/<label><input[^>]*type="checkbox"[^>]*\/>([\s\S]*?)<\/label>/g)].map(
      ([, label]) => label!.replace(/<[^>]+>/g, "").trim(),
    );
  expect(labelText("ja")).toEqual([
    "ID利用規約に同意する",
    "データサービス利用規約に同意する",
    "プライバシーポリシーに同意する",
  ]);
  expect(labelText("en")).toEqual([
    "I agree to the ID terms of use",
    "I agree to the data service terms of use",
    "I agree to the privacy policy",
  ]);
  expect(renderPage(page, "en")).toContain(
    'I agree to the <a href="/en/docs/privacy-policy/" target="_blank" rel="noopener">privacy policy</a>',
  );
});
