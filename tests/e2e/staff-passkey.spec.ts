import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createStaffAdmin } from "../support/admin-members";
import { refreshIntoDirectory } from "../support/staff-api-access";
import { signIn } from "../support/sign-in-form";
import { addVirtualAuthenticator } from "../support/virtual-authenticator";

// The staff sign-in with a passkey as the second factor, in Chromium: a virtual authenticator (Chrome DevTools
// Protocol) stands in for the device's platform authenticator, and the Cognito stand-in checks the ceremony through
// the staff app client. With JavaScript off, the passkey step says it needs JavaScript and points to the
// authenticator app.

const TEXTS = {
  ja: {
    addPasskey: "パスキーを追加",
    added: "パスキーを追加しました",
    email: "メールアドレス",
    password: "パスワード",
    next: "次へ",
    use: "パスキーを使う",
    confirm: "パスキーで確認する",
    needsJavaScript: "パスキーを使うにはJavaScriptが必要です",
  },
  en: {
    addPasskey: "Add a passkey",
    added: "Passkey added",
    email: "E-mail address",
    password: "Password",
    next: "Next",
    use: "Use your passkey",
    confirm: "Confirm with your passkey",
    needsJavaScript: "Using a passkey needs JavaScript",
  },
} as const;

type Locale = keyof typeof TEXTS;
const prefix = (locale: Locale) => (locale === "ja" ? "" : "/en");

/** Signs the staff member in as a member and adds a passkey on their security page (JavaScript on). */
async function addPasskey(page: Page, staff: { email: string; password: string }, locale: Locale) {
  await addVirtualAuthenticator(page);
  await page.goto(`${prefix(locale)}/auth/sign-in/?to=my-profile`);
  await signIn(page, staff, locale);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  // The password was typed just now, so no password step: the browser makes the passkey at once.
  await page.goto(`${prefix(locale)}/my/security/`);
  await page.getByRole("button", { name: TEXTS[locale].addPasskey }).click();
  await expect(page.getByTestId("toast")).toContainText(TEXTS[locale].added);
}

/** The staff sign-in's password step, from `path`. */
async function passwordStep(page: Page, staff: { email: string; password: string }, locale: Locale, path: string) {
  const texts = TEXTS[locale];
  await page.goto(path);
  await page.getByLabel(texts.email).fill(staff.email);
  await page.getByLabel(texts.password).fill(staff.password);
  await page.getByRole("button", { name: texts.next, exact: true }).click();
}

for (const locale of ["ja", "en"] as const) {
  test(`staff sign-in with a passkey (${locale}): the password, then the passkey open the staff area; confirming takes them again`, async ({
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "WebAuthn needs JavaScript; the js-off test below covers the page without it");
    test.setTimeout(120_000);
    const texts = TEXTS[locale];
    const staff = await createStaffAdmin(STANDIN_PORT, `staff-passkey-e2e-${locale}`);
    await refreshIntoDirectory(E2E_APP, [staff]);
    await addPasskey(page, staff, locale);

    await passwordStep(page, staff, locale, `${prefix(locale)}/admin/sign-in/?to=admin`);
    await expect(page.getByText(texts.needsJavaScript)).toHaveCount(0);
    await page.getByRole("button", { name: texts.use, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`^[^?]*${prefix(locale)}/admin/$`));
    await expect(page.getByTestId("staff-sign-in")).toHaveCount(0);

    // Re-authentication before a high-impact action: the password and the passkey again.
    const back = `${prefix(locale)}/admin/audit-log/`;
    await passwordStep(
      page,
      staff,
      locale,
      `${prefix(locale)}/admin/sign-in/?${new URLSearchParams({ mode: "confirm", to: back })}`,
    );
    await page.getByRole("button", { name: texts.confirm, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${back}$`));
  });
}

for (const locale of ["ja", "en"] as const) {
  test(`staff sign-in with a passkey (${locale}) without JavaScript: the passkey step says it needs JavaScript`, async ({
    browser,
    page,
    javaScriptEnabled,
    baseURL,
  }) => {
    test.skip(javaScriptEnabled, "the js-on test above uses the passkey");
    test.setTimeout(120_000);
    const texts = TEXTS[locale];
    const staff = await createStaffAdmin(STANDIN_PORT, `staff-passkey-nojs-${locale}`);
    // The passkey is made where it can be: another browser, with JavaScript on.
    const withJavaScript = await browser.newContext({ locale: "ja-JP", javaScriptEnabled: true, baseURL });
    try {
      await addPasskey(await withJavaScript.newPage(), staff, locale);
    } finally {
      await withJavaScript.close();
    }

    await passwordStep(page, staff, locale, `${prefix(locale)}/admin/sign-in/?to=admin`);
    await expect(page.getByTestId("staff-sign-in").getByText(texts.needsJavaScript)).toBeVisible();
    await expect(page.getByRole("button", { name: texts.use, exact: true })).toHaveCount(0);
    await expect(page).toHaveURL(/\/admin\/sign-in\//);
  });
}
