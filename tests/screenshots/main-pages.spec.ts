import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, test } from "@playwright/test";
import { createNamedMember } from "../support/admin-members";
import {
  LOCALE_PREFIXES,
  MEMBER_PAGES,
  VISITOR_PAGES,
  holdAtDeviceLimit,
  reachSignUpAccountStep,
  signInNewMember,
} from "../support/page-tour";
import { openStaffSessionInBrowser } from "../support/sign-in-form";
import { createApiStaff, refreshIntoDirectory } from "../support/staff-api-access";
import { SCREENSHOT_APP, SCREENSHOT_STANDIN_PORT } from "./playwright.config";

/** A phone and a desktop unless SCREENSHOT_WIDTHS names others (e.g. `SCREENSHOT_WIDTHS=320,800`). */
const WIDTHS = (process.env.SCREENSHOT_WIDTHS ?? "375,1440").split(",").map((width) => Number(width.trim()));

const STAFF_PAGES = ["/admin/", "/admin/users/", "/admin/audit-log/", "/admin/downloads/", "/admin/csv-import/"];

const OUTPUT_DIR = path.resolve(import.meta.dirname, "../../screenshots");

/** `/en/my/profile/` at 375 px → screenshots/375/en-my-profile.png; the home page is `ja-home`. */
function fileFor(width: number, url: string, suffix = ""): string {
  const language = url.startsWith("/en/") || url === "/en" ? "en" : "ja";
  const slug =
    url
      .replace(/^\/en(?=\/|$)/, "")
      .split("/")
      .filter(Boolean)
      .join("-") || "home";
  return path.join(OUTPUT_DIR, String(width), `${language}-${slug}${suffix}.png`);
}

async function openAs(browser: Browser, width: number, setUp?: (context: BrowserContext) => Promise<unknown>) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await setUp?.(context);
  return { context, page: await context.newPage() };
}

for (const width of WIDTHS) {
  test(`the main pages in both languages at ${width} px`, async ({ browser }) => {
    mkdirSync(path.join(OUTPUT_DIR, String(width)), { recursive: true });
    const shoot = async (
      visitor: Awaited<ReturnType<typeof openAs>>,
      urls: readonly string[],
      suffix = "",
    ): Promise<void> => {
      for (const prefix of LOCALE_PREFIXES) {
        for (const url of urls) {
          await visitor.page.goto(`${prefix}${url}`);
          await visitor.page.screenshot({ path: fileFor(width, `${prefix}${url}`, suffix), fullPage: true });
        }
      }
      await visitor.context.close();
    };

    await shoot(await openAs(browser, width), VISITOR_PAGES);
    await shoot(
      await openAs(browser, width, (context) => signInNewMember(context, SCREENSHOT_STANDIN_PORT, `shot-${width}`)),
      MEMBER_PAGES,
    );
    // The authenticator set-up (its QR code and code field), reached by its "Set up" button.
    const settingUp = await openAs(browser, width, (context) =>
      signInNewMember(context, SCREENSHOT_STANDIN_PORT, `shot-setup-${width}`),
    );
    for (const prefix of LOCALE_PREFIXES) {
      const url = `${prefix}/my/security/authenticator/`;
      await settingUp.page.goto(url);
      await settingUp.page.getByRole("button", { name: prefix ? "Set up" : "設定を始める" }).click();
      await settingUp.page.locator(".qr-code").waitFor();
      await settingUp.page.screenshot({ path: fileFor(width, url, "-setup"), fullPage: true });
      // A set-up under way stays on the page: cancelled, the other language starts its own.
      await settingUp.page.getByRole("button", { name: prefix ? "Cancel" : "やめる" }).click();
      await settingUp.page.getByRole("button", { name: prefix ? "Set up" : "設定を始める" }).waitFor();
    }
    await settingUp.context.close();
    await shoot(
      await openAs(browser, width, (context) => holdAtDeviceLimit(browser, context, SCREENSHOT_STANDIN_PORT)),
      ["/auth/sign-in/"],
      "-device-limit",
    );
    await shoot(
      await openAs(browser, width, (context) => reachSignUpAccountStep(context, `shot-${width}`)),
      ["/auth/sign-up/"],
      "-account-step",
    );
    const newStaff = (label: string) =>
      createNamedMember(SCREENSHOT_STANDIN_PORT, {
        email: `shot-${label}-${width}-${crypto.randomUUID().slice(0, 8)}@example.jp`,
        familyName: "山田",
        givenName: "花子",
        admin: true,
      });
    // A first visit: the staff sign-in's set-up of the authenticator app, after the password.
    const firstVisit = await openAs(browser, width);
    const newcomer = await newStaff("staff-new");
    await firstVisit.page.goto("/admin/sign-in/");
    await firstVisit.page.getByLabel("メールアドレス").fill(newcomer.email);
    await firstVisit.page.getByLabel("パスワード").fill(newcomer.password);
    await firstVisit.page.getByRole("button", { name: "次へ", exact: true }).click();
    await firstVisit.page.getByTestId("staff-setup-reason").waitFor();
    await firstVisit.page.screenshot({ path: fileFor(width, "/admin/sign-in/", "-first-visit"), fullPage: true });
    await firstVisit.context.close();
    // A staff session as staff open one (password, then the authenticator's code), and a member they refreshed, so
    // the member page and the audit log have something to show.
    const staff = await createApiStaff(SCREENSHOT_APP, `shot-staff-${width}`);
    const member = await createNamedMember(SCREENSHOT_STANDIN_PORT, {
      email: `shot-member-${width}-${crypto.randomUUID().slice(0, 8)}@example.jp`,
      familyName: "山田",
      givenName: "花子",
    });
    await refreshIntoDirectory(SCREENSHOT_APP, [staff, member], { by: staff });
    await shoot(
      await openAs(browser, width, async (context) => {
        const signingIn = await context.newPage();
        await openStaffSessionInBrowser(signingIn, staff, { path: "/admin/sign-in/?to=admin" });
        await signingIn.close();
        // Reads the "signed in" toast, so that no staff page shows it.
        await context.request.get("/admin/");
      }),
      [...STAFF_PAGES, `/admin/users/${member.sub}/`],
    );
  });
}
