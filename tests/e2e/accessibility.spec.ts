import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { expectNoSeriousViolations } from "../support/axe";
import { openStaffSessionInBrowser } from "../support/sign-in-form";

/**
 * The pages the layout tour (layout.spec.ts) does not open: it runs axe on the visitor's, the member's and the staff
 * pages at one width of each layout, this window's (1280 px) included.
 */
const PAGES = [
  "/docs/terms-of-use/shinkenchiku-online/",
  "/docs/api/",
  "/demo/",
  "/rebranding-debugs/",
  "/__dev/mailbox/",
  "/__dev/events/",
];

for (const path of PAGES) {
  // The API reference is one component over one document, the same markup in both languages; axe walks every one
  // of its elements, which is a long run, so it reads the Japanese one.
  for (const prefix of path === "/docs/api/" ? [""] : ["", "/en"]) {
    test(`${prefix}${path} has no serious or critical accessibility violations`, async ({ page }) => {
      // axe walks every element: on the long API reference it takes over 30 s on a loaded machine.
      test.setTimeout(90_000);
      await page.goto(`${prefix}${path}`);
      await expectNoSeriousViolations(page, `${prefix}${path}`);
    });
  }
}

test("every design-debug subpage has no serious or critical accessibility violations", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto("/rebranding-debugs/");
  const subpages = await page
    .locator("main a[href^='/rebranding-debugs/']")
    .evaluateAll((links) => links.map((link) => link.getAttribute("href") ?? ""));
  expect(subpages.length).toBeGreaterThanOrEqual(23);
  for (const path of subpages) {
    await page.goto(path);
    await expectNoSeriousViolations(page, path);
  }
});

test("the admin pages the layout tour does not open have no serious or critical accessibility violations", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const admin = await createApiStaff(E2E_APP, "axe");
  // A member who is not staff: a staff member's page (the admin's own) offers no change to confirm.
  const member = await createNamedMember(STANDIN_PORT, {
    email: `axe-member-${crypto.randomUUID().slice(0, 8)}@example.jp`,
  });
  await refreshIntoDirectory(E2E_APP, [admin, member]);
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin" });
  await expect(page).toHaveURL(/\/admin\/$/);
  for (const prefix of ["", "/en"]) {
    for (const path of ["/admin/?status=sleeping", `/admin/users/${member.sub}/?confirm=disable`]) {
      await page.goto(`${prefix}${path}`);
      await expectNoSeriousViolations(page, `${prefix}${path}`);
    }
  }
});

test("the CSV import's dry-run report, its ready panel and a job's page have no serious or critical accessibility violations", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const admin = await createApiStaff(E2E_APP, "axe-import");
  await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin-csv-import" });
  await expect(page).toHaveURL(/\/admin\/csv-import\/$/);
  // Once more, without the sign-in's toast: axe would catch it mid-fade.
  await page.goto("/admin/csv-import/");
  const header =
    "email,family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language";
  const upload = async (row: string) => {
    const file = Buffer.from(`\uFEFF${header}\r\n${row}\r\n`);
    await page.getByLabel("CSVファイル").setInputFiles({ name: "axe.csv", mimeType: "text/csv", buffer: file });
    await page.getByRole("button", { name: "チェックする" }).click();
  };
  await upload("not-an-address,山田,花子,1985,JP,東京都,pilot,=1+1,ja");
  await expect(page.getByTestId("import-errors")).toBeVisible();
  await expectNoSeriousViolations(page, "/admin/csv-import/ (report)");
  await upload(
    `axe-import-${crypto.randomUUID().slice(0, 8)}@example.jp,山田,花子,1985,JP,東京都,architect,新建築社,ja`,
  );
  await expect(page.getByTestId("import-ready")).toBeVisible();
  await expectNoSeriousViolations(page, "/admin/csv-import/?ready=");
  await page.getByRole("button", { name: "インポートを開始" }).click();
  await expect(page.getByTestId("import-state")).toBeVisible();
  await page.reload(); // without the "started" toast
  await expectNoSeriousViolations(page, "/admin/csv-import/{id}/");
});
