import { type Browser, type Page, expect } from "@playwright/test";
import {
  type StaffTestMember,
  type StaffWithAuthenticator,
  firstAuthenticatorCode,
  nextAuthenticatorCode,
} from "./admin-members";

const LABELS = {
  ja: { email: "メールアドレス", password: "パスワード", submit: "ログイン" },
  en: { email: "E-mail address", password: "Password", submit: "Log in" },
} as const;

/** Fills and submits the sign-in form the page is showing, as a member would, in the page's language. */
export async function signIn(page: Page, member: { email: string; password: string }, locale: "ja" | "en" = "ja") {
  const labels = LABELS[locale];
  await page.getByLabel(labels.email).fill(member.email);
  await page.getByLabel(labels.password).fill(member.password);
  await page.getByRole("button", { name: labels.submit, exact: true }).click();
}

/** A new browser (Japanese, JavaScript on or off) that has just posted the sign-in form, asking to go to the profile. */
export async function browserSigningIn(
  browser: Browser,
  member: { email: string; password: string },
  javaScriptEnabled: boolean,
) {
  const context = await browser.newContext({ locale: "ja-JP", javaScriptEnabled });
  const page = await context.newPage();
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, member);
  return { context, page };
}

const STAFF_LABELS = {
  ja: {
    email: "メールアドレス",
    password: "パスワード",
    next: "次へ",
    code: "認証アプリのコード",
    submit: "管理画面にログイン",
    confirmSubmit: "確認する",
  },
  en: {
    email: "E-mail address",
    password: "Password",
    next: "Next",
    code: "Code from the app",
    submit: "Log in to the staff area",
    confirmSubmit: "Confirm",
  },
} as const;

/**
 * Opens a staff session in the browser through the staff sign-in (the page's own `to` decides where it lands): the
 * password, then the authenticator's next unused code. The one way browser tests reach the staff pages. `path`: a
 * staff page to start from (it sends the browser to the staff sign-in), or the sign-in page itself.
 */
export async function openStaffSessionInBrowser(
  page: Page,
  staff: StaffWithAuthenticator,
  { path = "/admin/sign-in/", locale = "ja" }: { path?: string; locale?: "ja" | "en" } = {},
) {
  await page.goto(path);
  await enterStaffPasswordAndCode(page, staff, locale, "submit");
}

/**
 * On the staff sign-in's confirm mode, where a high-impact staff action sent the browser: the password and the
 * authenticator's next unused code again, which bring it back to the page the action was on.
 */
export async function confirmStaffInBrowser(page: Page, staff: StaffWithAuthenticator, locale: "ja" | "en" = "ja") {
  await enterStaffPasswordAndCode(page, staff, locale, "confirmSubmit");
}

async function enterStaffPasswordAndCode(
  page: Page,
  staff: StaffWithAuthenticator,
  locale: "ja" | "en",
  submit: "submit" | "confirmSubmit",
) {
  const labels = STAFF_LABELS[locale];
  await page.getByLabel(labels.email).fill(staff.email);
  await page.getByLabel(labels.password).fill(staff.password);
  await page.getByRole("button", { name: labels.next, exact: true }).click();
  await page.getByLabel(labels.code).fill(await nextAuthenticatorCode(staff));
  await page.getByRole("button", { name: labels[submit], exact: true }).click();
  await page.waitForURL((url) => !url.pathname.includes("/admin/sign-in"));
}

/**
 * A staff member's first visit without a second factor, on the staff sign-in the page is showing (Japanese): the
 * password once, the authenticator app set up from the key the page shows, its first code, the recovery codes, and
 * on into the staff area. Answers the staff member with the app, for their later sign-ins.
 */
export async function setUpStaffAuthenticatorInBrowser(
  page: Page,
  staff: StaffTestMember,
): Promise<StaffWithAuthenticator> {
  const labels = STAFF_LABELS.ja;
  await page.getByLabel(labels.email).fill(staff.email);
  await page.getByLabel(labels.password).fill(staff.password);
  await page.getByRole("button", { name: labels.next, exact: true }).click();
  await expect(page.getByTestId("staff-setup-reason")).toContainText("2段階認証が必要");
  const totpSecret = (await page.getByTestId("authenticator-key").textContent())!.replaceAll(" ", "");
  const { code, nextStep } = await firstAuthenticatorCode(totpSecret);
  await page.getByLabel("認証コード（6桁）").fill(code);
  await page.getByRole("button", { name: "有効にする", exact: true }).click();
  await expect(page.getByRole("heading", { name: "リカバリーコード" })).toBeVisible();
  await page.getByRole("link", { name: "保存しました。管理画面へ進む" }).click();
  await page.waitForURL((url) => !url.pathname.includes("/admin/sign-in"));
  return { ...staff, totpSecret, nextStep };
}
