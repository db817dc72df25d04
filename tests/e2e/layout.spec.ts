import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT, E2E_APP } from "../../playwright.config";
import { createNamedMember } from "../support/admin-members";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { expectNoSeriousViolations } from "../support/axe";
import { expectNoOverflow } from "../support/layout-overflow";
import { completedImportJob } from "../support/page-javascript";
import {
  LOCALE_PREFIXES,
  MEMBER_PAGES,
  VISITOR_PAGES,
  holdAtDeviceLimit,
  reachSignUpAccountStep,
  signInNewMember,
} from "../support/page-tour";
import { openStaffSessionInBrowser } from "../support/sign-in-form";

/**
 * The narrowest phone the spec supports, where content is likeliest not to fit: the width checked on every run.
 * `LAYOUT_WIDTHS=320,375,800,1440` checks these too, for a change to the style sheets.
 */
const WIDTHS = (process.env.LAYOUT_WIDTHS ?? "320").split(",").map(Number);
/** Staff work at desktops: their pages are also checked at a desktop width, where they line up on the page's column. */
const STAFF_WIDTHS = process.env.LAYOUT_WIDTHS ? WIDTHS : [320, 1440];

/**
 * axe runs at one width of each layout (the style sheets switch at 600, 641 and 1281 px): names, roles and contrast
 * change with the layout, not with the width inside one, and axe is most of each page's check.
 */
const AXE_WIDTHS = new Set([320, 800, 1440]);
/** Staff work at desktops: on a phone their pages are checked for overflow, and axe runs at the wider layouts. */
const STAFF_AXE_WIDTHS = new Set([800, 1440]);
const andAxe = (width: number, axeWidths = AXE_WIDTHS) =>
  axeWidths.has(width) ? " and serious accessibility violations" : "";

async function checkPage(page: Page, url: string, label = url, axeWidths = AXE_WIDTHS) {
  await page.goto(url);
  await checkShownPage(page, label, axeWidths);
}

/** The page as a click left it (a form's answer). */
async function checkShownPage(page: Page, label: string, axeWidths = AXE_WIDTHS) {
  await expectNoOverflow(page, label);
  if (axeWidths.has(page.viewportSize()?.width ?? 0)) await expectNoSeriousViolations(page, label);
}

for (const width of WIDTHS) {
  test(`at ${width} px every page is checked for overflow${andAxe(width)}`, async ({ browser }) => {
    // Every page and axe on each: minutes on a loaded 2-core machine.
    test.setTimeout(480_000);
    // One context per kind of visitor, each reused for all of its pages.
    const open = async (setUp?: (context: BrowserContext) => Promise<unknown>) => {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      await setUp?.(context);
      return { context, page: await context.newPage() };
    };

    const visitor = await open();
    for (const prefix of LOCALE_PREFIXES) {
      for (const url of VISITOR_PAGES) await checkPage(visitor.page, `${prefix}${url}`);
    }
    await visitor.context.close();

    const member = await open((context) => signInNewMember(context, STANDIN_PORT, `layout-${width}`));
    for (const prefix of LOCALE_PREFIXES) {
      for (const url of MEMBER_PAGES) await checkPage(member.page, `${prefix}${url}`);
      // The authenticator set-up, a "Set up" post away: its QR code leaves the code field in view on a phone.
      await member.page.goto(`${prefix}/my/security/authenticator/`);
      await member.page.getByRole("button", { name: prefix ? "Set up" : "設定を始める" }).click();
      await expect(member.page.getByLabel(prefix ? "Code (6 digits)" : "認証コード（6桁）")).toBeInViewport();
      await checkShownPage(member.page, `${prefix}/my/security/authenticator/ (set-up)`);
      await member.page.getByRole("button", { name: prefix ? "Cancel" : "やめる" }).click();
    }
    await member.context.close();

    const held = await open((context) => holdAtDeviceLimit(browser, context, STANDIN_PORT));
    for (const prefix of LOCALE_PREFIXES) {
      await checkPage(held.page, `${prefix}/auth/sign-in/`, `${prefix}/auth/sign-in/ (device limit)`);
      await expect(held.page.getByRole("button", { name: /無効にする|Deactivate/ }).first()).toBeVisible();
    }
    await held.context.close();

    const signingUp = await open((context) => reachSignUpAccountStep(context, `layout-${width}`));
    await checkPage(signingUp.page, "/auth/sign-up/", "/auth/sign-up/ (account step)");
    await expect(signingUp.page.locator('[name="familyName"]')).toBeVisible();
    await signingUp.context.close();
  });
}

/**
 * The staff pages' left edge: the staff bar's heading and each page's first block start where the footer's content
 * does (the page's column) and, above 1280 px, where the site header's brand does.
 */
async function expectOnThePageColumn(page: Page, label: string) {
  const edges = await page.evaluate(() => {
    const left = (selector: string) => {
      const element = document.querySelector(selector);
      if (!element) return null;
      const padding = Number.parseFloat(getComputedStyle(element).paddingLeft);
      return Math.round(element.getBoundingClientRect().left + padding);
    };
    const firstBlock = document.querySelector(".admin-shell__content > *");
    return {
      column: left(".site-footer__inner"),
      heading: left(".admin-shell__heading"),
      content: firstBlock ? Math.round(firstBlock.getBoundingClientRect().left) : null,
      brand: window.innerWidth > 1280 ? left(".site-header__service") : null,
    };
  });
  expect(edges.column, label).not.toBeNull();
  expect({ heading: edges.heading, content: edges.content }, label).toEqual({
    heading: edges.column,
    content: edges.column,
  });
  if (edges.brand !== null) expect(edges.brand, label).toBe(edges.column);
}

for (const width of STAFF_WIDTHS) {
  test(`at ${width} px the staff pages sit on the page's column and are checked for overflow${andAxe(width, STAFF_AXE_WIDTHS)}`, async ({
    browser,
  }) => {
    // Every page and axe on each: minutes on a loaded 2-core machine.
    test.setTimeout(480_000);
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const admin = await createApiStaff(E2E_APP, `layout-${width}`);
    const member = await createNamedMember(STANDIN_PORT, {
      email: `layout-staff-${width}-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    });
    await refreshIntoDirectory(E2E_APP, [admin, member]);
    const page = await context.newPage();
    await openStaffSessionInBrowser(page, admin, { path: "/admin/sign-in/?to=admin" });
    // Any toast of the sign-in is read by this request, so no page of the tour shows it half faded.
    await context.request.get("/admin/");
    const importJobId = await completedImportJob(context.request, E2E_APP.url);
    const staffPages = [
      "/admin/",
      `/admin/?q=${encodeURIComponent(member.email)}`,
      "/admin/users/",
      `/admin/users/${member.sub}/`,
      `/admin/users/${admin.sub}/`,
      "/admin/audit-log/",
      "/admin/downloads/",
      "/admin/csv-import/",
      "/admin/csv-import/columns/",
      `/admin/csv-import/${importJobId}/`,
    ];
    for (const prefix of LOCALE_PREFIXES) {
      for (const url of staffPages) {
        await checkPage(page, `${prefix}${url}`, `${prefix}${url}`, STAFF_AXE_WIDTHS);
        if (width >= 800) await expectOnThePageColumn(page, `${prefix}${url}`);
      }
    }
    await context.close();
  });
}
