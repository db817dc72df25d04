import type { Browser, Page } from "@playwright/test";

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
