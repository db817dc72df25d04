/**
 * The JavaScript every page makes a browser load, against the budget of gzipped JavaScript every page
 * must stay within (JAVASCRIPT_BUDGET_KB). `npm run bench` calls it after the throughput runs.
 *
 * How it measures: each page is opened in Debian's Chromium (JavaScript on) on its own preview server, and every
 * script response the browser received until the network went quiet is counted (entry, modulepreloads, route
 * modules and anything they import during hydration), plus the page's inline scripts (React Router's manifest
 * hand-off and loader data, translations included). Each file is gzipped at level 9 (a little smaller than the
 * level 6 compression() sends) and the inline scripts together, as they travel inside the compressed HTML.
 * kB = 1000 B. Both languages, signed out, signed in as a member (the device-limit screen included) and as staff.
 *
 * The member pages are what the budget is about. The staff pages are printed apart: the issue is about members on
 * phones, and the staff overview's chart is the one page allowed a library of its own.
 */
import { type Browser, type BrowserContext, chromium } from "@playwright/test";
import { gzipSync } from "node:zlib";
import { createNamedMember, refreshIntoDirectory } from "../support/admin-members";
import { signIn } from "../support/sign-in-form";
import { createTestMember } from "../support/test-members";
import { type RunningServer, findFreePort, printTable, startPreviewServer } from "./bench-support";

export const JAVASCRIPT_BUDGET_KB = 120;
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

type Visitor = "anonymous" | "member" | "deviceLimit" | "staff";

interface PageToWeigh {
  label: string;
  /** The Japanese path; the English one is the same under /en. */
  path: string;
  visitor: Visitor;
  staff?: boolean;
}

/** Every page a member or visitor can reach (parameterised ones with a sample value), then the staff pages. */
function pagesToWeigh(staffMemberSub: string): PageToWeigh[] {
  return [
    { label: "home", path: "/", visitor: "anonymous" },
    { label: "sign-in", path: "/auth/sign-in/", visitor: "anonymous" },
    { label: "sign-up", path: "/auth/sign-up/", visitor: "anonymous" },
    { label: "forgot password", path: "/auth/forgot-password/", visitor: "anonymous" },
    { label: "terms of use", path: "/docs/terms-of-use/", visitor: "anonymous" },
    { label: "terms (ID)", path: "/docs/terms-of-use/shinkenchiku-id/", visitor: "anonymous" },
    { label: "terms (online)", path: "/docs/terms-of-use/shinkenchiku-online/", visitor: "anonymous" },
    { label: "privacy policy", path: "/docs/privacy-policy/", visitor: "anonymous" },
    { label: "API reference", path: "/docs/api/", visitor: "anonymous" },
    { label: "e-mail link (bad token)", path: "/email-update/not-a-token/", visitor: "anonymous" },
    { label: "not found (404)", path: "/no-such-page/", visitor: "anonymous" },
    { label: "device-limit screen", path: "/auth/sign-in/", visitor: "deviceLimit" },
    { label: "home (signed in)", path: "/", visitor: "member" },
    { label: "my profile", path: "/my/profile/", visitor: "member" },
    { label: "profile edit", path: "/my/profile/edit/", visitor: "member" },
    { label: "e-mail change", path: "/my/email/edit/", visitor: "member" },
    { label: "password change", path: "/my/password/edit/", visitor: "member" },
    { label: "devices", path: "/my/devices/", visitor: "member" },
    { label: "withdrawal", path: "/my/withdrawal/", visitor: "member" },
    { label: "staff overview", path: "/admin/", visitor: "staff", staff: true },
    { label: "staff member search", path: "/admin/users/", visitor: "staff", staff: true },
    { label: "staff member detail", path: `/admin/users/${staffMemberSub}/`, visitor: "staff", staff: true },
    { label: "staff audit log", path: "/admin/audit-log/", visitor: "staff", staff: true },
    { label: "staff downloads", path: "/admin/downloads/", visitor: "staff", staff: true },
    { label: "staff CSV import", path: "/admin/csv-import/", visitor: "staff", staff: true },
  ];
}

export interface PageJavaScript {
  status: number;
  /** The page's own scripts: the document's, its modulepreloads and what they import while hydrating. */
  files: number;
  gzipBytes: number;
  /** What viewport prefetching of the pages it links to adds after hydration (AppLink), not part of the page. */
  prefetchGzipBytes: number;
}

const gzipSize = (content: Buffer | string) => gzipSync(content, { level: 9 }).length;

function inlineScriptsOf(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes = ""]) => !/\bsrc\s*=/i.test(attributes))
    .map(([, , body = ""]) => body);
}

/**
 * Opens `url` in a new tab of `context` and weighs every script the browser received until the network was idle,
 * telling the page's own from the prefetched: a prefetch is a module preload React Router added to the document
 * after hydration for a link in view, so its URL is in the live document's preloads but nowhere in the served HTML.
 */
export async function weighPageJavaScript(context: BrowserContext, url: string): Promise<PageJavaScript> {
  const page = await context.newPage();
  const scripts = new Map<string, Promise<number>>();
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script" || scripts.has(response.url())) return;
    scripts.set(
      response.url(),
      response.body().then(gzipSize, () => 0),
    );
  });
  try {
    const response = await page.goto(url, { waitUntil: "networkidle" });
    if (!response) throw new Error(`${url}: no response`);
    const html = await response.text();
    const livePreloads = await page.$$eval('link[rel="modulepreload"]', (links) =>
      links.map((link) => (link as HTMLLinkElement).href),
    );
    const prefetched = new Set(livePreloads.filter((href) => !html.includes(new URL(href).pathname)));
    let own = gzipSize(inlineScriptsOf(html).join("\n"));
    let prefetch = 0;
    let files = 0;
    for (const [scriptUrl, size] of scripts) {
      if (prefetched.has(scriptUrl)) prefetch += await size;
      else {
        own += await size;
        files += 1;
      }
    }
    return { status: response.status(), files, gzipBytes: own, prefetchGzipBytes: prefetch };
  } finally {
    await page.close();
  }
}

export const kilobytes = (bytes: number) => (bytes / 1000).toFixed(1);

/** A browser context signed in as `member` through the sign-in form, as a member would. */
export async function signedInContext(browser: Browser, origin: string, member: { email: string; password: string }) {
  const context = await browser.newContext({ baseURL: origin, locale: "ja-JP" });
  const page = await context.newPage();
  await page.goto("/auth/sign-in/");
  await signIn(page, member);
  await page.waitForURL((url) => !url.pathname.startsWith("/auth/sign-in"));
  await page.close();
  return context;
}

/**
 * A browser held on the device-limit screen: DEVICE_LIMIT is 1 on the bench's server and `member` is already
 * signed in elsewhere, so this sign-in waits on the screen that lists the other device.
 */
async function deviceLimitContext(browser: Browser, origin: string, member: { email: string; password: string }) {
  const context = await browser.newContext({ baseURL: origin, locale: "ja-JP" });
  const page = await context.newPage();
  await page.goto("/auth/sign-in/");
  await signIn(page, member);
  await page.getByTestId("device-count").waitFor();
  await page.close();
  return context;
}

/**
 * Starts its own preview server (its stand-in on a known port, for the members; a device limit of 1, for the
 * device-limit screen), weighs every page in both languages and prints the tables. `minimalOrigin`: a minimal
 * React Router page whose JavaScript (React and React Router alone) is printed for scale.
 */
export async function reportPageJavaScript(options: { minimalOrigin?: string } = {}) {
  const standInPort = await findFreePort();
  const app: RunningServer = await startPreviewServer({
    STANDIN_COGNITO_PORT: String(standInPort),
    DEVICE_LIMIT: "1",
  });
  const member = await createTestMember(standInPort, "page-weight");
  const heldMember = await createTestMember(standInPort, "page-weight-held");
  const staff = await createNamedMember(standInPort, {
    email: `page-weight-staff-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    admin: true,
  });

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH });
  try {
    const contexts: Record<Visitor, BrowserContext> = {
      anonymous: await browser.newContext({ baseURL: app.origin, locale: "ja-JP" }),
      member: await signedInContext(browser, app.origin, member),
      staff: await signedInContext(browser, app.origin, staff),
      // The held member's other device, then the browser that meets the limit.
      deviceLimit: await signedInContext(browser, app.origin, heldMember).then(() =>
        deviceLimitContext(browser, app.origin, heldMember),
      ),
    };

    // The staff member-detail page shows members the directory holds.
    await refreshIntoDirectory(contexts.staff.request, standInPort, staff, []);

    const rows: { page: PageToWeigh; ja: PageJavaScript; en: PageJavaScript }[] = [];
    for (const page of pagesToWeigh(staff.sub)) {
      const context = contexts[page.visitor];
      const ja = await weighPageJavaScript(context, app.origin + page.path);
      const en = await weighPageJavaScript(context, `${app.origin}/en${page.path}`);
      rows.push({ page, ja, en });
    }

    const budgetBytes = JAVASCRIPT_BUDGET_KB * 1000;
    const verdict = (weights: PageJavaScript[]) =>
      weights.every((weight) => weight.gzipBytes <= budgetBytes) ? "ok" : "OVER";
    const table = (staffPages: boolean) =>
      rows
        .filter((row) => Boolean(row.page.staff) === staffPages)
        .map(({ page, ja, en }) => [
          page.label,
          page.path,
          ja.status === 200 && en.status === 200 ? "200" : `${ja.status}/${en.status}`,
          String(ja.files),
          kilobytes(ja.gzipBytes),
          kilobytes(en.gzipBytes),
          verdict([ja, en]),
          kilobytes(ja.prefetchGzipBytes),
        ]);
    const header = ["page", "path (ja; en under /en)", "status", "files", "ja kB", "en kB", "budget", "+prefetch"];

    console.log(
      `\nJavaScript each page loads in Chromium (gzip level 9, inline scripts included, kB = 1000 B), ` +
        `budget ${JAVASCRIPT_BUDGET_KB} kB\n`,
    );
    printTable(header, table(false));
    console.log("\nStaff pages (reported apart: the budget is the members')\n");
    printTable(header, table(true));

    const memberRows = rows.filter((row) => !row.page.staff);
    const heaviest = Math.max(...memberRows.flatMap((row) => [row.ja.gzipBytes, row.en.gzipBytes]));
    const over = memberRows.filter((row) => verdict([row.ja, row.en]) === "OVER").length;
    console.log(
      `\nHeaviest member page: ${kilobytes(heaviest)} kB of ${JAVASCRIPT_BUDGET_KB} kB; ` +
        (over ? `${over} member page(s) OVER budget` : "every member page within budget"),
    );
    if (options.minimalOrigin) {
      const minimal = await weighPageJavaScript(contexts.anonymous, `${options.minimalOrigin}/`);
      console.log(
        `(A minimal React Router page loads ${kilobytes(minimal.gzipBytes)} kB: React and React Router alone.)`,
      );
    }
  } finally {
    await browser.close();
  }
}
