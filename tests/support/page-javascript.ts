/**
 * The JavaScript every page makes a browser load, as the budget test (tests/integration/build/page-javascript-budget.test.ts)
 * and the bench (tests/bench/page-weight.ts) weigh it.
 *
 * How it measures: each page is opened in Debian's Chromium (JavaScript on) as its visitor, and what its served
 * HTML makes the browser load is counted (entry, route modules, modulepreloads and their static imports), plus the
 * page's inline scripts (React Router's manifest hand-off and loader data, translations included). Each file is
 * gzipped at level 9 (a little smaller than the level 6 compression() sends) and the inline scripts together, as
 * they travel inside the compressed HTML. kB = 1000 B. Both languages, signed out, signed in as a member (the
 * device-limit screen included) and as staff. Scripts a page imports only when the member asks for them (the passkey
 * script, once a passkey button's answer has come) are not part of loading the page: they are weighed apart.
 */
import { type APIRequestContext, type Browser, type BrowserContext } from "@playwright/test";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { CSV_IMPORT_COLUMNS } from "~/domain/csv-import/csv-import-file.server";
import type { StaffWithAuthenticator } from "./admin-members";
import { createApiStaff, refreshIntoDirectory } from "./staff-api-access";
import { openStaffSessionInBrowser, signIn } from "./sign-in-form";
import { createTestMember } from "./test-members";

/** The most gzipped JavaScript any page may load; React and React Router alone take about 110 kB of it. */
export const JAVASCRIPT_BUDGET_KB = 126;
/** The server's DEVICE_LIMIT that `weighEveryPage` needs: one browser holds the device-limit screen. */
export const PAGE_WEIGHT_DEVICE_LIMIT = "1";

type Visitor = "anonymous" | "member" | "deviceLimit" | "staff";

export interface PageToWeigh {
  label: string;
  /** The Japanese path; the English one is the same under /en. */
  path: string;
  visitor: Visitor;
  /** The status the page answers with when it is not 200. */
  status?: number;
  /** Also weigh what it imports on demand (the passkey script), reported apart from the page's own figure. */
  withOnDemandScripts?: true;
}

/** Every page a member or visitor can reach (parameterised ones with a sample value), then the staff pages. */
function pagesToWeigh(staffMemberSub: string, importJobId: string): PageToWeigh[] {
  return [
    { label: "home", path: "/", visitor: "anonymous" },
    { label: "sign-in", path: "/auth/sign-in/", visitor: "anonymous", withOnDemandScripts: true },
    { label: "sign-up", path: "/auth/sign-up/", visitor: "anonymous" },
    { label: "forgot password", path: "/auth/forgot-password/", visitor: "anonymous" },
    { label: "terms of use", path: "/docs/terms-of-use/", visitor: "anonymous" },
    { label: "terms (ID)", path: "/docs/terms-of-use/shinkenchiku-id/", visitor: "anonymous" },
    { label: "terms (online)", path: "/docs/terms-of-use/shinkenchiku-online/", visitor: "anonymous" },
    { label: "privacy policy", path: "/docs/privacy-policy/", visitor: "anonymous" },
    { label: "API reference", path: "/docs/api/", visitor: "anonymous" },
    { label: "e-mail link (bad token)", path: "/email-update/not-a-token/", visitor: "anonymous", status: 410 },
    { label: "sign-in alert link (bad token)", path: "/sign-in-alert/not-a-token/", visitor: "anonymous", status: 410 },
    {
      label: "newsletter unsubscribe (bad token)",
      path: "/newsletter/unsubscribe/not-a-token/",
      visitor: "anonymous",
      status: 400,
    },
    { label: "not found (404)", path: "/no-such-page/", visitor: "anonymous", status: 404 },
    // Its passkey step loads SimpleWebAuthn's browser half on demand, as the member sign-in does.
    { label: "staff sign-in", path: "/admin/sign-in/", visitor: "anonymous", withOnDemandScripts: true },
    { label: "device-limit screen", path: "/auth/sign-in/", visitor: "deviceLimit" },
    { label: "home (signed in)", path: "/", visitor: "member" },
    { label: "my profile", path: "/my/profile/", visitor: "member" },
    { label: "profile edit", path: "/my/profile/edit/", visitor: "member" },
    { label: "e-mail change", path: "/my/email/edit/", visitor: "member" },
    { label: "password change", path: "/my/password/edit/", visitor: "member" },
    { label: "devices", path: "/my/devices/", visitor: "member" },
    { label: "security", path: "/my/security/", visitor: "member", withOnDemandScripts: true },
    { label: "withdrawal", path: "/my/withdrawal/", visitor: "member" },
    { label: "password step", path: "/my/reauthentication/", visitor: "member" },
    { label: "your data", path: "/my/data/", visitor: "member" },
    { label: "staff overview", path: "/admin/", visitor: "staff" },
    { label: "staff member search", path: "/admin/users/", visitor: "staff" },
    { label: "staff member detail", path: `/admin/users/${staffMemberSub}/`, visitor: "staff" },
    { label: "staff audit log", path: "/admin/audit-log/", visitor: "staff" },
    { label: "staff deliveries", path: "/admin/events/", visitor: "staff" },
    { label: "staff downloads", path: "/admin/downloads/", visitor: "staff" },
    { label: "staff CSV import", path: "/admin/csv-import/", visitor: "staff" },
    { label: "staff CSV columns", path: "/admin/csv-import/columns/", visitor: "staff" },
    { label: "staff CSV import job", path: `/admin/csv-import/${importJobId}/`, visitor: "staff" },
  ];
}

export interface PageJavaScript {
  status: number;
  /** The page's own scripts: the document's, its modulepreloads and what they import while hydrating. */
  files: number;
  gzipBytes: number;
  /** What else arrived until the network was idle: prefetching of the pages it links to (AppLink), not the page's. */
  prefetchGzipBytes: number;
  /** What the page's code imports on demand (`withOnDemandScripts`), loaded only when the member uses it. */
  onDemandGzipBytes: number;
}

export interface PageWeight {
  page: PageToWeigh;
  ja: PageJavaScript;
  en: PageJavaScript;
}

const gzipSize = (content: Buffer | string) => gzipSync(content, { level: 9 }).length;

function inlineScriptsOf(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
    .filter(([, attributes = ""]) => !/\bsrc\s*=/i.test(attributes))
    .map(([, , body = ""]) => body);
}

/** The scripts the served HTML names: `<script src>` and `<link rel="modulepreload" href>`, as absolute URLs. */
function scriptUrlsNamedBy(html: string, pageUrl: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/gi)].map(([, src = ""]) => src);
  const preloads = [...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/gi)].map(
    ([, href = ""]) => href,
  );
  return [...scripts, ...preloads].map((reference) => new URL(reference, pageUrl).href);
}

/** The modules a built module imports statically (`import … from"./x.js"`, `import"./x.js"`, `export … from`). */
function staticImportsOf(source: string, moduleUrl: string): string[] {
  return [...source.matchAll(/\b(?:from|import)\s*"(\.{1,2}\/[^"]+)"/g)].map(
    ([, specifier = ""]) => new URL(specifier, moduleUrl).href,
  );
}

/** The modules a built module imports on demand (import(`./x.js`)): loaded when the page's code asks, not before. */
function dynamicImportsOf(source: string, moduleUrl: string): string[] {
  return [...source.matchAll(/\bimport\(\s*[`"](\.{1,2}\/[^`"]+)[`"]\s*\)/g)].map(
    ([, specifier = ""]) => new URL(specifier, moduleUrl).href,
  );
}

/** Fingerprinted assets never change, so each is fetched and gzipped once per process. */
const scriptSizes = new Map<string, Promise<{ gzipBytes: number; imports: string[]; onDemand: string[] }>>();

function sizeScript(context: BrowserContext, scriptUrl: string) {
  let size = scriptSizes.get(scriptUrl);
  if (!size) {
    size = context.request.get(scriptUrl).then(async (response) => {
      if (!response.ok()) throw new Error(`${scriptUrl}: ${response.status()}`);
      const body = await response.body();
      const source = body.toString("utf8");
      return {
        gzipBytes: gzipSize(body),
        imports: staticImportsOf(source, scriptUrl),
        onDemand: dynamicImportsOf(source, scriptUrl),
      };
    });
    scriptSizes.set(scriptUrl, size);
  }
  return size;
}

/**
 * The scripts `roots` load before they run: themselves and, transitively, what they import statically, leaving out
 * those already `known` (loaded for the page itself).
 */
async function staticClosureOf(
  context: BrowserContext,
  roots: string[],
  known: ReadonlyMap<string, number> = new Map(),
) {
  const closure = new Map<string, number>();
  let frontier = [...new Set(roots)];
  while (frontier.length > 0) {
    const sized = await Promise.all(
      frontier.map(async (scriptUrl) => [scriptUrl, await sizeScript(context, scriptUrl)] as const),
    );
    frontier = [];
    for (const [scriptUrl, { gzipBytes, imports }] of sized) {
      closure.set(scriptUrl, gzipBytes);
      frontier.push(
        ...imports.filter((imported) => !closure.has(imported) && !known.has(imported) && !frontier.includes(imported)),
      );
    }
  }
  return closure;
}

/**
 * Opens `url` in a new tab of `context` and weighs the JavaScript the page loads: its inline scripts and every
 * script its served HTML names (entry, route modules, modulepreloads) with their static imports. That set follows
 * from the HTML and the build alone, so the figure does not depend on timing. What else the browser fetched until
 * the network was idle is prefetching for links in view (React Router adds those preloads after hydration), reported
 * apart and not part of the page.
 */
export async function weighPageJavaScript(
  context: BrowserContext,
  url: string,
  { withOnDemandScripts = false }: { withOnDemandScripts?: boolean } = {},
): Promise<PageJavaScript> {
  const page = await context.newPage();
  const received = new Set<string>();
  page.on("response", (response) => {
    if (response.request().resourceType() === "script") received.add(response.url());
  });
  try {
    const response = await page.goto(url, { waitUntil: "networkidle" });
    if (!response) throw new Error(`${url}: no response`);
    const html = await response.text();
    const own = await staticClosureOf(context, scriptUrlsNamedBy(html, response.url()));
    const onDemandRoots = withOnDemandScripts
      ? (await Promise.all([...own.keys()].map((scriptUrl) => sizeScript(context, scriptUrl)))).flatMap(
          (script) => script.onDemand,
        )
      : [];
    const onDemand = await staticClosureOf(context, onDemandRoots, own);
    const later = await staticClosureOf(
      context,
      [...received].filter((scriptUrl) => !own.has(scriptUrl)),
      own,
    );
    const sum = (sizes: Map<string, number>) => [...sizes.values()].reduce((total, size) => total + size, 0);
    return {
      status: response.status(),
      files: own.size,
      gzipBytes: gzipSize(inlineScriptsOf(html).join("\n")) + sum(own),
      prefetchGzipBytes: sum(later),
      onDemandGzipBytes: sum(onDemand),
    };
  } finally {
    await page.close();
  }
}

export const kilobytes = (bytes: number) => (bytes / 1000).toFixed(1);

/** Whether both languages of a page stay within the budget. */
export const isWithinBudget = (weight: PageWeight) =>
  weight.ja.gzipBytes <= JAVASCRIPT_BUDGET_KB * 1000 && weight.en.gzipBytes <= JAVASCRIPT_BUDGET_KB * 1000;

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

/** A browser context with a staff session only, opened through the staff sign-in. */
async function staffSessionContext(browser: Browser, origin: string, staff: StaffWithAuthenticator) {
  const context = await browser.newContext({ baseURL: origin, locale: "ja-JP" });
  const page = await context.newPage();
  await openStaffSessionInBrowser(page, staff);
  await page.close();
  return context;
}

/**
 * A browser held on the device-limit screen: the server's DEVICE_LIMIT is 1 and `member` is already signed in
 * elsewhere, so this sign-in waits on the screen that lists the other device.
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
 * A CSV import job made as staff make one (the upload's dry run, then "start"), waited for until it has completed,
 * so that its progress page is weighed in one state whatever the timing: the job's id.
 */
export async function completedImportJob(staff: APIRequestContext, origin: string): Promise<string> {
  const email = `page-weight-import-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const row = [email, "山田", "花子", "1990", "JP", "東京都", "design", "設計事務所", "ja"];
  const csv = `${CSV_IMPORT_COLUMNS.join(",")}\r\n${row.join(",")}\r\n`;
  const headers = { Origin: origin };
  const checked = await staff.post(`${origin}/admin/csv-import/`, {
    headers,
    multipart: { file: { name: "members.csv", mimeType: "text/csv", buffer: Buffer.from(csv) } },
    maxRedirects: 0,
  });
  const jobId = new URL(checked.headers().location ?? "", origin).searchParams.get("ready");
  if (!jobId) throw new Error(`the dry run did not offer a job: ${checked.status()} ${await checked.text()}`);
  const started = await staff.post(`${origin}/admin/csv-import/`, {
    headers,
    form: { intent: "start", jobId },
    maxRedirects: 0,
  });
  if (started.status() !== 302) throw new Error(`starting the job: ${started.status()} ${await started.text()}`);
  // Read, not imported: Playwright's loader (the layout tour imports this file) takes no JSON module without an
  // import attribute.
  const jaCsvImport = JSON.parse(
    readFileSync(new URL("../../locales/ja/csv-import.json", import.meta.url), "utf8"),
  ) as {
    states: { completed: string };
  };
  const completed = `data-testid="import-state">${jaCsvImport.states.completed}<`;
  for (let look = 0; look < 120; look++) {
    if ((await (await staff.get(`${origin}/admin/csv-import/${jobId}/`)).text()).includes(completed)) return jobId;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`import job ${jobId} did not complete within a minute`);
}

/**
 * Weighs every page in both languages on a running server (`origin`, its APP_ORIGIN; its Cognito stand-in on
 * `standInPort`; DEVICE_LIMIT of PAGE_WEIGHT_DEVICE_LIMIT), signing in its own member, held member and staff member.
 */
export async function weighEveryPage(browser: Browser, origin: string, standInPort: number): Promise<PageWeight[]> {
  const member = await createTestMember(standInPort, "page-weight");
  const heldMember = await createTestMember(standInPort, "page-weight-held");
  const staff = await createApiStaff({ url: origin, standInPort, origin }, "page-weight-staff");
  const contexts: Record<Visitor, BrowserContext> = {
    anonymous: await browser.newContext({ baseURL: origin, locale: "ja-JP" }),
    member: await signedInContext(browser, origin, member),
    staff: await staffSessionContext(browser, origin, staff),
    // The held member's other device, then the browser that meets the limit.
    deviceLimit: await signedInContext(browser, origin, heldMember).then(() =>
      deviceLimitContext(browser, origin, heldMember),
    ),
  };
  try {
    // The staff member-detail page shows members the directory holds.
    await refreshIntoDirectory({ url: origin, origin, standInPort }, [staff]);
    const importJobId = await completedImportJob(contexts.staff.request, origin);
    // Both languages and every visitor side by side: what a page loads does not depend on timing.
    const pages = pagesToWeigh(staff.sub, importJobId);
    const weights = new Map<PageToWeigh, PageWeight>();
    await Promise.all(
      (Object.keys(contexts) as Visitor[]).map(async (visitor) => {
        for (const page of pages.filter((candidate) => candidate.visitor === visitor)) {
          const [ja, en] = await Promise.all([
            weighPageJavaScript(contexts[visitor], origin + page.path, page),
            weighPageJavaScript(contexts[visitor], `${origin}/en${page.path}`, page),
          ]);
          weights.set(page, { page, ja, en });
        }
      }),
    );
    return pages.map((page) => weights.get(page)!);
  } finally {
    await Promise.all(Object.values(contexts).map((context) => context.close()));
  }
}

/** One row per page for a table: label, path, statuses, files, ja and en kB, verdict, what prefetching adds. */
export const PAGE_WEIGHT_HEADER = [
  "page",
  "path (ja; en under /en)",
  "status",
  "files",
  "ja kB",
  "en kB",
  "budget",
  "+prefetch",
  "+on demand",
];
export function pageWeightRow({ page, ja, en }: PageWeight): string[] {
  return [
    page.label,
    page.path,
    ja.status === en.status ? String(ja.status) : `${ja.status}/${en.status}`,
    String(ja.files),
    kilobytes(ja.gzipBytes),
    kilobytes(en.gzipBytes),
    isWithinBudget({ page, ja, en }) ? "ok" : "OVER",
    kilobytes(ja.prefetchGzipBytes),
    kilobytes(ja.onDemandGzipBytes),
  ];
}
