import type { BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { STANDIN_PORT } from "../../playwright.config";
import { expectNoSeriousViolations } from "../support/axe";
import {
  LOCALE_PREFIXES,
  MEMBER_PAGES,
  VISITOR_PAGES,
  holdAtDeviceLimit,
  reachSignUpAccountStep,
  signInNewMember,
} from "../support/page-tour";

/** From the narrowest phone the spec supports (320 px) to a desktop. */
const WIDTHS = [320, 375, 800, 1440];

// axe runs inside the page, so it needs JavaScript; the server-rendered layout is the same without it, less the
// Subject ID's copy button, which only the page's script adds.
test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "axe-core needs JavaScript in the page");

/** The page is no wider than the window; when it is, the message names the elements that stick out. */
async function expectNoSidewaysScroll(page: Page, label: string) {
  const overflow = await page.evaluate(() => {
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth <= width) return null;
    const sticking = [...document.body.querySelectorAll("*")]
      .filter((element) => element.getBoundingClientRect().right > width)
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${[...element.classList].join(".")}`);
    return { scrollWidth, width, sticking };
  });
  expect(overflow, `${label} scrolls sideways`).toBeNull();
}

async function checkPage(page: Page, url: string, label = url) {
  await page.goto(url);
  await expectNoSidewaysScroll(page, label);
  await expectNoSeriousViolations(page, label);
}

for (const width of WIDTHS) {
  test(`at ${width} px no page scrolls sideways or has a serious accessibility violation`, async ({ browser }) => {
    test.setTimeout(240_000);
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
