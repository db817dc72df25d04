import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { latestEmailUpdateLinkFor } from "../support/mail-links";
import { createTestMember } from "../support/test-members";
import { signIn } from "../support/sign-in-form";

test("the e-mail change page is for members only", async ({ page }) => {
  await page.goto("/my/email/edit/");
  await expect(page).toHaveURL(/\/auth\/sign-in\/\?to=my-email-edit$/);
});

test("changing the e-mail: confirmation mail, link, toast, sign-in with the new address; the link works once", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const member = await createTestMember(STANDIN_PORT, "email-change");
  const newEmail = `changed-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  await page.goto("/auth/sign-in/?to=my-email-edit");
  await signIn(page, member);
  await expect(page).toHaveURL(/\/my\/email\/edit\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("メールアドレス変更");
  await expect(page.getByTestId("current-email")).toHaveText(member.email);

  // The same address is refused.
  await page.getByLabel("新しいメールアドレス").fill(member.email);
  await page.getByRole("button", { name: "確認メールを送信する" }).click();
  await expect(page.locator("main")).toContainText("現在のメールアドレスと同じです");

  await page.getByLabel("新しいメールアドレス").fill(newEmail);
  await page.getByRole("button", { name: "確認メールを送信する" }).click();
  await expect(page.getByTestId("email-change-sent")).toContainText("確認メールを送信しました");

  const link = await latestEmailUpdateLinkFor(request, newEmail);
  expect(link).toMatch(/^\/email-update\/[A-Za-z0-9_-]{43}\/$/);
  // Opening the link changes nothing until the member confirms.
  await page.goto(link);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("メールアドレス変更の確認");
  await page.goto("/my/profile/");
  await expect(page.getByTestId("email")).toHaveText(member.email);

  await page.goto(link);
  await page.getByRole("button", { name: "メールアドレスを変更する" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("toast")).toContainText("メールアドレスを変更しました");
  await expect(page.getByTestId("email")).toHaveText(newEmail);

  // Used once: the link now says it has expired.
  await page.goto(link);
  await expect(page.getByTestId("email-update-expired")).toContainText("URLの有効期限が切れています");

  // The new address signs in; the old one no longer does.
  await page.context().clearCookies();
  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, { email: member.email, password: member.password });
  await expect(page.getByRole("alert")).toContainText("ログインに失敗しました");
  await signIn(page, { email: newEmail, password: member.password });
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("email")).toHaveText(newEmail);
});

test("an unknown link shows the expired-URL message, signed in or not", async ({ page }) => {
  await page.goto(`/en/email-update/${"x".repeat(43)}/`);
  await expect(page.getByTestId("email-update-expired")).toContainText("This URL has expired");
});

test("the confirmation link without its token says the link is invalid, with 404, in both languages", async ({
  page,
}) => {
  const japanese = await page.goto("/email-update/");
  expect(japanese?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("リンクが無効か、有効期限が切れています");
  await expect(page.getByTestId("email-update-expired")).toContainText("URLが途中で切れています");

  const english = await page.goto("/en/email-update/");
  expect(english?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This link is invalid or has expired");
  await expect(page.getByTestId("email-update-expired")).toContainText("The URL is incomplete");
  await expect(page.getByRole("main").getByRole("link", { name: "Change e-mail address" })).toBeVisible();
});
