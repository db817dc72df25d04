import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { inviteMember, latestTemporaryPassword } from "../support/invited-members";
import { signIn } from "../support/sign-in-form";

/**
 * A member staff imported (the identity adapter's inviteUser: Cognito mails an invitation with a temporary password)
 * reads the temporary password from the mailbox, signs in with it, chooses a password on the "choose your password"
 * step and is in the app. Runs in both projects (JavaScript on and off); Japanese in one test, English in the other.
 */

const MEMBER_PASSWORD = "chosen-by-the-invited-1";

test("an imported member signs in with the mailed temporary password and chooses a password (Japanese)", async ({
  page,
  request,
  javaScriptEnabled,
}) => {
  const invited = await inviteMember(STANDIN_PORT, "first-sign-in-ja", "ja");
  const temporaryPassword = await latestTemporaryPassword(
    async () => (await request.get("/__dev/mailbox/")).text(),
    invited.email,
  );

  await page.goto("/auth/sign-in/?to=my-profile");
  await signIn(page, { email: invited.email, password: temporaryPassword });
  await expect(page).toHaveURL(/\/auth\/sign-in\/new-password\/\?to=my-profile$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("パスワードの設定");
  await expect(page.locator("main")).toContainText("あなたのために作成されたもの");
  await expect(page.getByLabel("メールアドレス")).toHaveValue(invited.email);
  if (javaScriptEnabled) {
    // axe runs inside the page, so only with JavaScript; the server-rendered page is the same either way.
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((violation) => ["serious", "critical"].includes(violation.impact ?? ""))).toEqual([]);
  }

  // Too short: said on the field (in the browser with JavaScript, by the server without); a page the server answered
  // does not send the password back.
  await page.getByLabel("新しいパスワード").fill("short");
  await page.getByRole("button", { name: "パスワードを設定してログイン" }).click();
  await expect(page.getByText("8文字以上で入力してください")).toBeVisible();
  if (!javaScriptEnabled) await expect(page.getByLabel("新しいパスワード")).toHaveValue("");

  await page.getByLabel("新しいパスワード").fill(MEMBER_PASSWORD);
  await page.getByRole("button", { name: "パスワードを設定してログイン" }).click();
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await expect(page.getByTestId("toast")).toContainText("ログインしました");
  await expect(page.getByRole("banner")).toContainText(invited.email);
});

test("an imported member signs in with the mailed temporary password and chooses a password (English)", async ({
  page,
  request,
}) => {
  const invited = await inviteMember(STANDIN_PORT, "first-sign-in-en", "en");
  const temporaryPassword = await latestTemporaryPassword(
    async () => (await request.get("/__dev/mailbox/")).text(),
    invited.email,
  );

  await page.goto("/en/auth/sign-in/");
  await signIn(page, { email: invited.email, password: temporaryPassword }, "en");
  await expect(page).toHaveURL(/\/en\/auth\/sign-in\/new-password\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Choose your password");
  await expect(page.locator("main")).toContainText("This ID account was created for you");

  // Made of the address: refused on the field before Cognito's challenge is answered, so the same step goes on.
  await page.getByLabel("New password").fill(invited.email);
  await page.getByRole("button", { name: "Set password and log in" }).click();
  await expect(page.getByLabel("New password")).toHaveAccessibleDescription(
    /A password made from your e-mail address or name/,
  );

  await page.getByLabel("New password").fill(MEMBER_PASSWORD);
  await page.getByRole("button", { name: "Set password and log in" }).click();
  await expect(page).toHaveURL(/\/en\/$/);
  await expect(page.getByTestId("toast")).toContainText("You have logged in");
  await expect(page.getByRole("banner")).toContainText(invited.email);
});
