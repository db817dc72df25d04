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

/**
 * Japanese words that broke across lines (docs/decisions.md, "Line breaking"): in a phone's table cell broken between
 * any two characters (利用できま/す), and where phrase breaking's model splits a number from its counter or a set
 * phrase (13か/月間, ログインの/際), and in a button's label too long for one line (デバイスか/ら). The tour finds each
 * at least once, on the home page, the privacy policy, the cancellation page and /my/security/.
 */
const WHOLE_WORDS = ["利用できます", "13か月間", "ログインの際", "デバイスから"];

/**
 * The words of `words` the page shows, and those of them that start on one line and end on another, measured with a
 * Range over each occurrence (a word joiner inside the word, which keeps it whole, is skipped when matching).
 */
function findWordsAcrossLines(page: Page, words: string[]) {
  return page.evaluate((words) => {
    const shown = new Set<string>();
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      // Where each character of the text without word joiners sits in the node's text.
      const offsets: number[] = [];
      for (let index = 0; index < text.length; index++) if (text[index] !== "\u2060") offsets.push(index);
      const plain = offsets.map((offset) => text[offset]).join("");
      for (const word of words) {
        for (let at = plain.indexOf(word); at !== -1; at = plain.indexOf(word, at + 1)) {
          const range = document.createRange();
          range.setStart(node, offsets[at]!);
          range.setEnd(node, offsets[at + word.length - 1]! + 1);
          const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
          if (rects.length === 0) continue;
          shown.add(word);
          const first = rects[0]!;
          if (rects.some((rect) => rect.top >= first.bottom - 1)) broken.push(`${word} in "${plain.trim()}"`);
        }
      }
    }
    return { shown: [...shown], broken };
  }, words);
}

/** Checks one page; returns the whole words it showed. */
async function checkPage(page: Page, url: string, label = url, axeWidths = AXE_WIDTHS) {
  await page.goto(url);
  return checkShownPage(page, label, axeWidths);
}

/** The page as a click left it (a form's answer); returns the whole words it showed. */
async function checkShownPage(page: Page, label: string, axeWidths = AXE_WIDTHS) {
  await expectNoOverflow(page, label);
  const words = await findWordsAcrossLines(page, WHOLE_WORDS);
  expect(words.broken, `${label}: words broken across lines`).toEqual([]);
  if (axeWidths.has(page.viewportSize()?.width ?? 0)) await expectNoSeriousViolations(page, label);
  return words.shown;
}

/** The tour's languages, each a test of its own so that the two run side by side. */
const TOUR_LANGUAGES = LOCALE_PREFIXES.map((prefix) => ({
  prefix,
  name: prefix ? "English" : "Japanese",
  // For the test members' addresses.
  label: prefix ? "en" : "ja",
}));

for (const width of WIDTHS) {
  for (const { prefix, name, label } of TOUR_LANGUAGES) {
    test(`at ${width} px every page in ${name} is checked for overflow${andAxe(width)}`, async ({ browser }) => {
      // Every page and axe on each: minutes on a loaded 2-core machine.
      test.setTimeout(480_000);
      // One context per kind of visitor, each reused for all of its pages.
      const open = async (setUp?: (context: BrowserContext) => Promise<unknown>) => {
        const context = await browser.newContext({ viewport: { width, height: 800 } });
        await setUp?.(context);
        return { context, page: await context.newPage() };
      };

      const wordsShown = new Set<string>();
      const visitor = await open();
      for (const url of VISITOR_PAGES) {
        for (const word of await checkPage(visitor.page, `${prefix}${url}`)) wordsShown.add(word);
      }
      await visitor.context.close();

      const member = await open((context) => signInNewMember(context, STANDIN_PORT, `layout-${width}-${label}`));
      for (const url of MEMBER_PAGES) {
        for (const word of await checkPage(member.page, `${prefix}${url}`)) wordsShown.add(word);
      }
      // The authenticator set-up, a "Set up" post away: its QR code leaves the code field in view on a phone.
      await member.page.goto(`${prefix}/my/security/authenticator/`);
      await member.page.getByRole("button", { name: prefix ? "Set up" : "設定を始める" }).click();
      await expect(member.page.getByLabel(prefix ? "Code (6 digits)" : "認証コード（6桁）")).toBeInViewport();
      await checkShownPage(member.page, `${prefix}/my/security/authenticator/ (set-up)`);
      await member.page.getByRole("button", { name: prefix ? "Cancel" : "やめる" }).click();
      await member.context.close();
      // Each (Japanese) word was on a page measured above, so none can go unchecked by a change of wording.
      if (!prefix) expect([...wordsShown].sort(), "whole words the tour measured").toEqual([...WHOLE_WORDS].sort());

      const held = await open((context) => holdAtDeviceLimit(browser, context, STANDIN_PORT));
      await checkPage(held.page, `${prefix}/auth/sign-in/`, `${prefix}/auth/sign-in/ (device limit)`);
      await expect(held.page.getByRole("button", { name: /無効にする|Deactivate/ }).first()).toBeVisible();
      await held.context.close();

      if (prefix) return;
      const signingUp = await open((context) => reachSignUpAccountStep(context, `layout-${width}`));
      await checkPage(signingUp.page, "/auth/sign-up/", "/auth/sign-up/ (account step)");
      await expect(signingUp.page.locator('[name="familyName"]')).toBeVisible();
      // The dev tools' mailbox, holding this sign-up's code and the other specs' mails and links by now: overflow only
      // (mail text is not typeset for a page; axe: accessibility.spec.ts).
      await signingUp.page.goto("/__dev/mailbox/");
      await expectNoOverflow(signingUp.page, "/__dev/mailbox/");
      await signingUp.context.close();
    });
  }
}

/**
 * Above 1280 px the header's links and its right area (language switch, then the sign-up and log-in links or the
 * user menu) share one row of the page's column, whose width stops growing at the column's: the last link must end
 * before the language switch starts, for a visitor and for a member's six account links, in both languages.
 */
test("from 1281 to 1920 px the header's last link stays clear of the language switch", async ({ browser }) => {
  // Eight page views and a member's sign-in: over half a minute on a loaded 2-core machine.
  test.setTimeout(90_000);
  const context = await browser.newContext();
  await signInNewMember(context, STANDIN_PORT, "header-row");
  const visitor = await browser.newContext();
  const gaps: string[] = [];
  for (const width of [1281, 1920]) {
    for (const prefix of LOCALE_PREFIXES) {
      for (const [who, page, url] of [
        ["visitor", await visitor.newPage(), "/"],
        ["member", await context.newPage(), "/my/profile/"],
      ] as const) {
        await page.setViewportSize({ width, height: 800 });
        await page.goto(`${prefix}${url}`);
        const lastLink = await page.locator(".site-header__nav-list > li").last().boundingBox();
        const languageSwitch = await page.locator(".site-header__language").boundingBox();
        expect(lastLink && languageSwitch, `${who} ${prefix}${url} at ${width} px`).toBeTruthy();
        if (lastLink!.x + lastLink!.width > languageSwitch!.x) {
          gaps.push(
            `${who} ${prefix}${url} at ${width} px: last link ends at ${lastLink!.x + lastLink!.width}, language switch starts at ${languageSwitch!.x}`,
          );
        }
        await page.close();
      }
    }
  }
  expect(gaps).toEqual([]);
  await context.close();
  await visitor.close();
});

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

/**
 * The dashboard's chart labels as the screen shows them: the SVG scales its drawing to its box, and its text with it.
 * Each at least 12 px, and no category label running into the next.
 */
async function expectReadableChartLabels(page: Page, label: string) {
  const charts = await page.evaluate(() =>
    [...document.querySelectorAll<SVGSVGElement>(".admin-chart__svg")].map((svg) => {
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const texts = [...svg.querySelectorAll("text")].filter((text) => text.textContent);
      const ticks = [...svg.querySelectorAll(".admin-chart__ticks text")].filter((text) => text.textContent);
      const boxes = ticks.map((text) => text.getBoundingClientRect());
      return {
        smallestPx: Math.min(...texts.map((text) => Number.parseFloat(getComputedStyle(text).fontSize) * scale)),
        overlaps: boxes.filter((box, index) => index > 0 && box.left < boxes[index - 1]!.right).length,
      };
    }),
  );
  expect(charts.length, label).toBeGreaterThan(0);
  for (const chart of charts) {
    expect(chart.smallestPx, label).toBeGreaterThanOrEqual(12);
    expect(chart.overlaps, label).toBe(0);
  }
}

for (const width of STAFF_WIDTHS) {
  for (const { prefix, name, label } of TOUR_LANGUAGES) {
    test(`at ${width} px the staff pages in ${name} sit on the page's column and are checked for overflow${andAxe(width, STAFF_AXE_WIDTHS)}`, async ({
      browser,
    }) => {
      // Every page and axe on each: minutes on a loaded 2-core machine.
      test.setTimeout(480_000);
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const admin = await createApiStaff(E2E_APP, `layout-${width}-${label}`);
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
        "/admin/events/",
        "/admin/downloads/",
        "/admin/csv-import/",
        "/admin/csv-import/columns/",
        `/admin/csv-import/${importJobId}/`,
      ];
      for (const url of staffPages) {
        await checkPage(page, `${prefix}${url}`, `${prefix}${url}`, STAFF_AXE_WIDTHS);
        if (width >= 800) await expectOnThePageColumn(page, `${prefix}${url}`);
        if (url === "/admin/") await expectReadableChartLabels(page, `${prefix}${url}`);
      }
      await context.close();
    });
  }
}
