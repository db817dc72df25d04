import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { signInNewMember } from "../support/page-tour";

test("the Subject ID is selected whole by a click and, with JavaScript, copied by its button", async ({
  browser,
  javaScriptEnabled,
}) => {
  const context = await browser.newContext({ javaScriptEnabled });
  await signInNewMember(context, STANDIN_PORT, "subject-id");
  const page = await context.newPage();
  await page.goto("/my/profile/");
  const subject = page.getByTestId("subject");
  await expect(subject).toHaveText(/^[0-9a-f-]{36}$/);
  await expect(subject).toHaveCSS("user-select", "all");
  const copyButton = page.getByRole("button", { name: "お問い合わせ番号をコピー" });
  if (!javaScriptEnabled) {
    // Without the page's script a button could not copy: there is none.
    await expect(copyButton).toHaveCount(0);
  } else {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await copyButton.click();
    await expect(page.getByRole("status").filter({ hasText: "コピーしました" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await subject.textContent());
  }
  await context.close();
});
