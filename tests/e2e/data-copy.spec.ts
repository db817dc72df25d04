import { readFile } from "node:fs/promises";
import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { browserSigningIn } from "../support/sign-in-form";

async function download(page: Page, button: string) {
  const saved = page.waitForEvent("download");
  await page.getByRole("button", { name: button }).click();
  const file = await saved;
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), "utf8") };
}

/** What the browser's own cookies hold that must never be in the copy: the session id, the access token, the device key. */
async function cookieSecrets(context: BrowserContext): Promise<string[]> {
  const secrets: string[] = [];
  for (const cookie of await context.cookies()) {
    const value = decodeURIComponent(cookie.value);
    const payload = value.slice(0, value.lastIndexOf("."));
    const decoded: unknown = JSON.parse(Buffer.from(payload, "base64").toString("utf8"));
    if (cookie.name.endsWith("id_session")) secrets.push(...Object.values(decoded as Record<string, string>));
    if (cookie.name.endsWith("id_device")) secrets.push(decoded as string);
  }
  return secrets;
}

test("the data copy: the page shows it, the download holds the address, sub, profile, sessions and the staff action, and no token", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const label = crypto.randomUUID().slice(0, 8);
  const member = await createNamedMember(STANDIN_PORT, {
    email: `data-copy-${label}@example.jp`,
    familyName: "山田",
    givenName: `太郎${label}`,
  });
  const admin = await createApiStaff(E2E_APP, "data-copy");
  // A staff action on the member: the admin API's refresh, recorded in the staff audit log.
  await refreshIntoDirectory(E2E_APP, [member], { by: admin });
  const { context, page } = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(page).toHaveURL(/\/my\/profile\/$/);

  // The signed-in menus offer the page.
  await expect(page.locator('a[href="/my/data/"]').first()).toHaveText("あなたのデータ");
  await page.goto("/my/data/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("あなたのデータ");
  await expect(page.getByTestId("data-copy-identity")).toContainText(member.email);
  await expect(page.getByTestId("data-copy-identity")).toContainText(`太郎${label}`);
  await expect(page.getByTestId("data-copy-sessions")).toContainText("ログイン中");
  // Codes read as /my/security/ writes them; the file below keeps the codes.
  await expect(page.getByTestId("data-copy-securityRecord").locator('dd[data-field="kind"]').last()).toHaveText(
    "ログイン",
  );
  await expect(page.getByTestId("data-copy-staffActions").locator('dd[data-field="action"]')).toHaveText(
    "スタッフが会員情報を再読み込み",
  );
  // Who did it: a pseudonym, never the staff member's address.
  await expect(page.getByTestId("data-copy-staffActions").locator('dd[data-field="staff"]')).toHaveText("スタッフ1");
  await expect(page.getByTestId("data-copy-staffActions")).not.toContainText(admin.email);

  const file = await download(page, "JSONファイルをダウンロード");
  expect(file.name).toMatch(/^my-data-\d{8}-\d{4}\.json$/);
  const copy = JSON.parse(file.text) as {
    schemaVersion: number;
    member: { sub: string; email: string };
    sections: {
      identity: { email: string; givenName: string };
      sessions: { live: boolean }[];
      staffActions: { action: string; staff: string }[];
    };
  };
  expect(copy.schemaVersion).toBe(2);
  expect(copy.member).toEqual({ sub: member.sub, email: member.email });
  expect(copy.sections.identity).toMatchObject({ email: member.email, givenName: `太郎${label}` });
  expect(copy.sections.sessions.filter((session) => session.live)).toHaveLength(1);
  expect(copy.sections.staffActions).toEqual([expect.objectContaining({ action: "user.refresh", staff: "staff-1" })]);
  expect(file.text).not.toContain(admin.email);
  const secrets = await cookieSecrets(context);
  expect(secrets.length).toBeGreaterThanOrEqual(3);
  for (const secret of secrets) expect(file.text).not.toContain(secret);
  expect(file.text).not.toMatch(/eyJ[\w-]{10,}/);
  // The page is still there after the download.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("あなたのデータ");
  await context.close();
});

test("in English, an old session downloads the data copy after the password step", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(60_000);
  const member = await createNamedMember(STANDIN_PORT, {
    email: `data-copy-en-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  const { context, page } = await browserSigningIn(browser, member, javaScriptEnabled);
  await expect(page).toHaveURL(/\/my\/profile\/$/);
  await page.goto("/en/my/data/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your data");

  // Eleven minutes on (the dev tools' session clock, see reauthentication.spec.ts).
  await page.goto("/en/demo/");
  await page.getByLabel("Minutes to move back").fill("11");
  await page.getByRole("button", { name: "Move back" }).click();
  await expect(page).toHaveURL(/\?moved=11$/);

  await page.goto("/en/my/data/");
  await expect(page).toHaveURL(/\/en\/my\/reauthentication\/\?to=%2Fen%2Fmy%2Fdata%2F$/);
  await page.getByLabel("Password").fill(member.password);
  await page.getByRole("button", { name: "Confirm and continue" }).click();
  await expect(page).toHaveURL(/\/en\/my\/data\/$/);
  // The newest event first: the password just entered again, in English.
  await expect(page.getByTestId("data-copy-securityRecord").locator('dd[data-field="kind"]').first()).toHaveText(
    "Password entered again",
  );
  const file = await download(page, "Download as JSON");
  expect(JSON.parse(file.text)).toMatchObject({ member: { sub: member.sub, email: member.email } });
  await context.close();
});
