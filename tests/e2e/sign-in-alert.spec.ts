import type { APIRequestContext, Browser } from "@playwright/test";
import { expect, inOneProjectFor, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { latestSignInAlertLinkFor } from "../support/mail-links";
import { latestCodeFor } from "../support/mailbox";
import { signIn } from "../support/sign-in-form";
import { createTestMember } from "../support/test-members";

const TEXTS = {
  ja: {
    prefix: "",
    contextLocale: "ja-JP",
    title: "ログインを終了する",
    submit: "このログインを終了する",
    ended: "お知らせしたログインを終了しました",
    reset: "パスワードを再設定する",
    expired: "リンクが無効か、有効期限が切れています",
  },
  en: {
    prefix: "/en",
    contextLocale: "en-US",
    title: "End this login",
    submit: "End this login",
    ended: "The login we told you about has ended",
    reset: "Reset your password",
    expired: "This link is invalid or has expired",
  },
} as const;

/** A new browser (its own cookies, hence its own device key) in the test's JavaScript setting. */
async function newBrowser(browser: Browser, locale: "ja" | "en", javaScriptEnabled: boolean) {
  const context = await browser.newContext({ locale: TEXTS[locale].contextLocale, javaScriptEnabled });
  return { context, page: await context.newPage() };
}

for (const locale of ["ja", "en"] as const) {
  const texts = TEXTS[locale];
  test(`${locale}: a second browser's sign-in mails the member; the link ends that browser's session alone, once`, async ({
    page,
    browser,
    request,
  }, testInfo) => {
    inOneProjectFor(locale);
    test.setTimeout(90_000);
    const javaScriptEnabled = testInfo.project.name !== "js-off";
    const member = await createTestMember(STANDIN_PORT, `alert-${locale}`);
    const profile = new RegExp(`^[^?]*${texts.prefix}/my/profile/$`);

    // The first browser: the member's first sign-in mails nobody.
    await page.goto(`${texts.prefix}/auth/sign-in/?to=my-profile`);
    await signIn(page, member, locale);
    await expect(page).toHaveURL(profile);

    // A second browser signs in: the alert arrives, in the sign-in page's language.
    const second = await newBrowser(browser, locale, javaScriptEnabled);
    await second.page.goto(`${texts.prefix}/auth/sign-in/?to=my-profile`);
    await signIn(second.page, member, locale);
    await expect(second.page).toHaveURL(profile);
    const link = await latestSignInAlertLinkFor(request, member.email);
    expect(link).toMatch(new RegExp(`^${texts.prefix}/sign-in-alert/[A-Za-z0-9_-]{43}/$`));

    // A third browser, signed in nowhere, opens the link: the page only offers the button until it is pressed.
    const reader = await newBrowser(browser, locale, javaScriptEnabled);
    await reader.page.goto(link);
    await expect(reader.page.getByRole("heading", { level: 1 })).toHaveText(texts.title);
    await second.page.goto(`${texts.prefix}/my/profile/`);
    await expect(second.page).toHaveURL(profile);

    await reader.page.getByRole("button", { name: texts.submit }).click();
    await expect(reader.page.getByTestId("sign-in-alert-ended")).toContainText(texts.ended);
    await expect(reader.page.getByRole("main").getByRole("link", { name: texts.reset })).toHaveAttribute(
      "href",
      `${texts.prefix}/auth/forgot-password/`,
    );

    // The second browser's next request is signed out; the first stays signed in.
    await second.page.goto(`${texts.prefix}/my/profile/`);
    await expect(second.page).toHaveURL(new RegExp(`${texts.prefix}/auth/sign-in/\\?to=my-profile$`));
    await page.goto(`${texts.prefix}/my/profile/`);
    await expect(page).toHaveURL(profile);

    // Used once: the link now says it has expired.
    const again = await reader.page.goto(link);
    expect(again?.status()).toBe(410);
    await expect(reader.page.getByTestId("sign-in-alert-expired")).toContainText(texts.expired);

    await second.context.close();
    await reader.context.close();
  });
}

/** How many sign-in alerts the dev mailbox holds for an address. */
async function alertsInMailbox(request: APIRequestContext, email: string): Promise<number> {
  const html = await (await request.get("/__dev/mailbox/")).text();
  return html
    .split('<li class="mailbox-entry"')
    .slice(1)
    .filter((entry) => entry.startsWith(' data-kind="mail"') && entry.includes(`>${email}<`))
    .filter((entry) => entry.includes("/sign-in-alert/")).length;
}

test("the browser that signed up and the first sign-in after sign-up mail nobody; a third browser does", async ({
  page,
  browser,
  request,
}, testInfo) => {
  test.setTimeout(90_000);
  const javaScriptEnabled = testInfo.project.name !== "js-off";
  const member = {
    email: `signed-up-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    password: "a-long-enough-password",
  };

  // Signing up in this browser, up to the confirmed code: the account exists, and this browser is the member's.
  await page.goto("/auth/sign-up/");
  await page.locator('[name="email"]').fill(member.email);
  await page.locator('[name="password"]').fill(member.password);
  for (const name of ["agreeIdTerms", "agreeDataTerms", "agreePrivacy"]) await page.locator(`[name="${name}"]`).check();
  await page.getByRole("button", { name: "確認コードを送信" }).click();
  await page.locator('[name="code"]').fill(await latestCodeFor(request, member.email));
  await page.getByRole("button", { name: "確認", exact: true }).click();
  await expect(page.getByText("氏名は実名でご登録ください")).toBeVisible();

  // The first sign-in is from another browser, then the sign-up browser signs in: neither is news.
  const phone = await newBrowser(browser, "ja", javaScriptEnabled);
  await phone.page.goto("/auth/sign-in/?to=my-profile");
  await signIn(phone.page, member);
  await expect(phone.page).toHaveURL(/\/my\/profile\/$/);
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/profile\/$/);

  // A third browser is: its alert arrives, and it is the only one (the outbox sends in the order mail was queued).
  const third = await newBrowser(browser, "ja", javaScriptEnabled);
  await third.page.goto("/auth/sign-in/?to=my-profile");
  await signIn(third.page, member);
  await expect(third.page).toHaveURL(/\/my\/profile\/$/);
  await latestSignInAlertLinkFor(request, member.email);
  expect(await alertsInMailbox(request, member.email)).toBe(1);

  await phone.context.close();
  await third.context.close();
});
