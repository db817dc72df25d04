import { readFileSync, readdirSync } from "node:fs";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { beforeAll, describe, expect, test } from "vitest";
import type { z } from "zod";
import { API_ENDPOINTS, ErrorEnvelopeSchema } from "~/api/contract";
import type { ApiEndpoint } from "~/api/endpoint";
import { DEBUG_PAGES } from "~/components/design-debug/debug-pages";
import { CSV_IMPORT_COLUMNS } from "~/domain/csv-import/csv-import-file.server";
import { LOCALES, type Locale } from "~/i18n/locales";
import routes from "~/routes";
import { ROUTE_SECTIONS, type RouteName, type SectionId, pathFor, pathForRouteName } from "~/routing/route-table";
import { bearerTokensFor } from "../../support/bearer-tokens";
import type { StaffWithAuthenticator } from "../../support/admin-members";
import { get, signIn, staffSignedIn } from "../../support/session-http";
import { type TestServer, sdk, useTestServers } from "../../support/session-servers";
import { createApiStaff, refreshIntoDirectory, staffTokenSource } from "../../support/staff-api-access";
import { createTestMember } from "../../support/test-members";

/**
 * The route table's contract over HTTP: every page of app/routing/route-table.ts (both languages) and every endpoint
 * of the API's contract (app/api/contract.ts), asked for by the production build (preview mode) as each caller it
 * serves, answers with the status, the headers that matter and a body marker that the routes' own tests expect. It
 * speaks HTTP only, so it holds whatever serves the requests (our middleware in front of React Router's handler).
 * Routes come from the tables themselves: a new page or endpoint is covered without a line here, and one this file
 * cannot fill a parameter for fails.
 *
 * Who may open what (visitor, member, admin without a staff session, idle and expired staff sessions) is the role ×
 * route matrix's, in admin-access.test.ts; here each route is asked once per caller that it is for, and what is
 * checked is the whole answer: security headers, caching, cookies, content type, language and heading.
 */

/** A sibling service's credential for the event feed (the endpoints of access "service"). */
const FEED_TOKEN = "contract-feed-token-".padEnd(40, "f");
const servers = useTestServers({ main: { SERVICE_FEED_TOKENS_DATA: FEED_TOKEN } });
let main: TestServer;

type Caller = "visitor" | "member" | "staff";

/** A signed-in member's browser, a staff session's browser, and the bearer tokens of the same two for the API. */
const callers = {
  cookies: {} as Record<Caller, string>,
  tokens: {} as Record<"member" | "staff", () => Promise<string>>,
};
/** Staff tokens renewed one at a time: the tests run concurrently, and each staff sign-in spends a one-time code. */
function oneAtATime(source: () => Promise<string>): () => Promise<string> {
  let last = Promise.resolve("");
  return () => (last = last.then(source, source));
}
/** Real values for the path parameters, by name: the member the staff pages are about, a CSV import job. */
const paramValues: Record<string, string> = {
  // Not a link we signed: the pages that take one answer with their "invalid link" page, the privacy policy ignores it.
  token: "not-a-signed-link-token",
  file: "users.csv",
  page: DEBUG_PAGES[0],
};

const IMPORT_CSV = `${CSV_IMPORT_COLUMNS.join(",")}\ncontract-import@example.jp,山田,花子,1990,JP,東京都,design,会社,ja\n`;

beforeAll(async () => {
  main = servers.main;
  const member = await createTestMember(main.standInPort, "contract-member");
  const signedIn = await signIn(main, member);
  expect(signedIn.response.status).toBe(302);
  expect(signedIn.response.headers.getSetCookie().some((cookie) => cookie.startsWith("id_session="))).toBe(true);
  expectCookieAttributes(signedIn.response);
  callers.cookies.member = signedIn.cookie;
  callers.cookies.visitor = "";

  const standIn = await sdk(main);
  const { sub, accessToken } = await bearerTokensFor(standIn, member.email, member.password);
  callers.tokens.member = () => Promise.resolve(accessToken);
  const staff: StaffWithAuthenticator = await createApiStaff(main.process, "contract-staff");
  callers.cookies.staff = await staffSignedIn(main, staff);
  callers.tokens.staff = oneAtATime(staffTokenSource(standIn, staff));

  // The staff pages and endpoints about one member need that member in the staff directory, as a staff tool puts them.
  await refreshIntoDirectory(main.process, [{ ...member, sub }], { by: staff });
  paramValues.sub = sub;
  const imported = await fetch(`${main.origin}/api/admin/csv-import/user-create`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await callers.tokens.staff()}`, "Content-Type": "text/csv" },
    body: IMPORT_CSV,
  });
  expect(imported.status).toBe(202);
  paramValues.id = ((await imported.json()) as { job: { id: string } }).job.id;
}, 180_000);

// ---- what every answer carries -------------------------------------------------------------------------------------

/** Written out here, not read from app/server/security-headers.ts: a header dropped there must fail this file. */
const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
};
/** A page's policy: scripts from our origin or with this response's nonce, no framing, no plugins, no other base. */
const PAGE_POLICY =
  /^default-src 'self'; script-src 'self' 'nonce-([A-Za-z0-9+/]{20,}={0,2})'; style-src 'self';.*frame-ancestors 'none'; base-uri 'self'; object-src 'none'/;
/** The API's JSON: nothing in it may run, load or be framed. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Each page answer's nonce: a nonce served twice would be no nonce at all. */
const noncesSeen = new Set<string>();

function expectCommonHeaders(response: Response, what: string) {
  for (const [name, value] of Object.entries(COMMON_HEADERS))
    expect(response.headers.get(name), `${what}: ${name}`).toBe(value);
}

/** Every cookie we set is out of scripts' reach, not sent on other sites' posts, and for the whole site. */
function expectCookieAttributes(response: Response, what = "sign-in") {
  for (const cookie of response.headers.getSetCookie()) {
    const attributes = cookie
      .split(/;\s*/)
      .slice(1)
      .map((attribute) => attribute.toLowerCase());
    expect(attributes, `${what}: ${cookie}`).toContain("httponly");
    expect(attributes, `${what}: ${cookie}`).toContain("path=/");
    expect(
      attributes.some((attribute) => attribute === "samesite=lax" || attribute === "samesite=strict"),
      `${what}: ${cookie}`,
    ).toBe(true);
  }
}

/** The page's CSP and its nonce, fresh for this answer; the common headers and the cookies' attributes. */
function expectPageHeaders(response: Response, what: string): string {
  const policy = response.headers.get("Content-Security-Policy") ?? "";
  const nonce = PAGE_POLICY.exec(policy)?.[1];
  expect(nonce, `${what}: Content-Security-Policy ${policy}`).toBeDefined();
  expect(noncesSeen.has(nonce!), `${what}: a nonce served before`).toBe(false);
  noncesSeen.add(nonce!);
  expectCommonHeaders(response, what);
  expectCookieAttributes(response, what);
  return nonce!;
}

// ---- the pages -----------------------------------------------------------------------------------------------------

/** Every string of a locale's files: a page's heading is one of them. */
function localeStrings(locale: Locale): Set<string> {
  const strings = new Set<string>();
  const collect = (value: unknown): void => {
    if (typeof value === "string") strings.add(value);
    else if (value && typeof value === "object") Object.values(value).forEach(collect);
  };
  const folder = new URL(`../../../locales/${locale}/`, import.meta.url);
  for (const file of readdirSync(folder)) collect(JSON.parse(readFileSync(new URL(file, folder), "utf8")));
  return strings;
}
const LOCALE_STRINGS = Object.fromEntries(LOCALES.map((locale) => [locale, localeStrings(locale)])) as Record<
  Locale,
  Set<string>
>;

/** What a caller gets: the page (HTML), a download (CSV), or a redirect to another named page. */
type Answer =
  | { status: number; kind: "html" }
  | { status: 200; kind: "csv" }
  | { status: 302; kind: "redirect"; to: (locale: Locale, path: string, name: RouteName) => string };

const page = (status = 200): Answer => ({ status, kind: "html" });
/**
 * A redirect to a named page; `withReturn`: with `to=`, what brings the caller back after signing in (the route's
 * name where that names the page, the path itself where a parameter says which one).
 */
const redirectTo = (target: RouteName, withReturn = false): Answer => ({
  status: 302,
  kind: "redirect",
  to: (locale, path, name) => {
    if (!withReturn) return pathFor(target, locale);
    const returnTo = pathForRouteName(name, locale) === null ? path : name;
    return `${pathFor(target, locale)}?${new URLSearchParams({ to: returnTo }).toString()}`;
  },
});

/** Who each section is for, and what everyone else gets (the layouts' middleware). */
const SECTION_RULES: Record<SectionId, Partial<Record<Caller, Answer>>> = {
  default: { visitor: page(), member: page() },
  member: { visitor: redirectTo("auth-sign-in", true), member: page() },
  staff: { visitor: redirectTo("admin-sign-in", true), staff: page() },
  // Preview mode has the dev tools (production answers 404: dev-tools-only.server.ts and its own test).
  "dev-tools": { visitor: page(), member: page() },
};

/** The pages that answer otherwise than their section, each with its reason. */
const EXCEPTIONS: Partial<Record<RouteName, Partial<Record<Caller, Answer>>>> = {
  // The catch-all: any path the table does not have.
  "not-found": { visitor: page(404), member: page(404) },
  // /auth/ has nothing of its own: it is the way to sign-in.
  auth: { visitor: redirectTo("auth-sign-in"), member: redirectTo("auth-sign-in") },
  // The steps after the password need a sign-in in progress; without one they go back to its start.
  "auth-new-password": { visitor: redirectTo("auth-sign-in"), member: redirectTo("auth-sign-in") },
  "auth-two-step": { visitor: redirectTo("auth-sign-in"), member: redirectTo("auth-sign-in") },
  // Nobody to sign out: back to the home page.
  "auth-sign-out": { visitor: redirectTo("index") },
  // A signed-in member does not sign up again: the sign-in page says they are signed in.
  "auth-sign-up": { member: redirectTo("auth-sign-in") },
  // A token we did not sign: the "invalid or expired link" page, 410 for mailed links, 400 for the unsubscribe URL.
  "email-update": { visitor: page(410), member: page(410) },
  "sign-in-alert": { visitor: page(410), member: page(410) },
  "newsletter-unsubscribe": { visitor: page(400), member: page(400) },
  // The data copy is the data page's form post (after the password step); a GET goes to the data page.
  "my-data-download": { member: redirectTo("my-data") },
  // Downloads under the staff pages: CSV files, not pages.
  "admin-download": { staff: { status: 200, kind: "csv" } },
  "admin-csv-import-template": { staff: { status: 200, kind: "csv" } },
  "admin-csv-import-failed-rows": { staff: { status: 200, kind: "csv" } },
};

const PAGES = ROUTE_SECTIONS.flatMap((section) => section.pages.map((entry) => ({ section: section.id, ...entry })));
/** A path the route table does not have, for its catch-all. */
const UNKNOWN_PATH = "no-such-page/anywhere";

/** The page's URL in a locale, its parameters filled with real values (an optional one too, as links carry it). */
function pagePath(name: RouteName, pattern: string, locale: Locale): string {
  if (name === "not-found") return locale === "ja" ? `/${UNKNOWN_PATH}/` : `/en/${UNKNOWN_PATH}/`;
  const params = Object.fromEntries(
    [...pattern.matchAll(/:(\w+)/g)].map(([, key]) => {
      const value = paramValues[key!];
      if (value === undefined)
        throw new Error(`No value for the parameter :${key} of "${name}": add one to paramValues.`);
      return [key!, value];
    }),
  );
  return pathFor(name, locale, params);
}

/**
 * The page's own words: its heading or a part of its title (" | " joins the page's to the site's) that is a string of
 * this locale's files and not of the other's, so it also says the page came in the right language.
 */
function localizedMarkerOf(html: string, locale: Locale): string | undefined {
  const heading =
    /<h1[^>]*>(.*?)<\/h1>/s
      .exec(html)?.[1]
      ?.replace(/<[^>]+>/g, "")
      .trim() ?? "";
  const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
  const other = LOCALES.find((candidate) => candidate !== locale)!;
  return [heading, ...title.split(" | ")].find(
    (text) => LOCALE_STRINGS[locale].has(text) && !LOCALE_STRINGS[other].has(text),
  );
}

/** `no-store` among the directives (a download adds `no-transform`). */
function expectNoStore(response: Response, what: string) {
  const directives = (response.headers.get("Cache-Control") ?? "").split(/,\s*/);
  expect(directives, `${what}: Cache-Control`).toContain("no-store");
}

interface PageRequest {
  section: SectionId;
  name: RouteName;
  locale: Locale;
  path: string;
  caller: Caller;
  method: "GET" | "HEAD";
}

/** The answer against its row: status, headers, and the body's marker (a HEAD's body is empty). */
async function expectPageAnswer(response: Response, expected: Answer, request: PageRequest) {
  const { section, name, locale, path, caller, method } = request;
  const what = `${caller} ${method} ${path}`;
  expect(response.status, what).toBe(expected.status);
  const nonce = expectPageHeaders(response, what);
  // A page that shows or depends on a session is never kept by a shared cache, nor is anything of a members' or
  // staff section (their redirects included).
  if (caller !== "visitor" || section === "member" || section === "staff") expectNoStore(response, what);
  const body = await response.text();
  if (method === "HEAD") expect(body, what).toBe("");
  if (expected.kind === "redirect") {
    expect(response.headers.get("Location"), what).toBe(expected.to(locale, path, name));
  } else if (expected.kind === "csv") {
    expect(response.headers.get("Content-Type"), what).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition"), what).toMatch(/^attachment; filename="[^"]+\.csv"/);
  } else {
    expect(response.headers.get("Content-Type"), what).toBe("text/html; charset=utf-8");
    if (method === "HEAD") return;
    expect(response.headers.get("Vary") ?? "", `${what}: Vary`).toContain("Accept-Encoding");
    expect(body, what).toMatch(new RegExp(`^<!DOCTYPE html>\\s*<html\\b[^>]*\\slang="${locale}"`));
    expect(localizedMarkerOf(body, locale), `${what}: no heading or title from the locale files`).toBeDefined();
    // Every script the page carries runs under this answer's nonce, and no other: an inline script without it would
    // be blocked by the browser.
    for (const [, carried] of body.matchAll(/\snonce="([^"]*)"/g)) expect(carried, what).toBe(nonce);
    for (const [tag] of body.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>/g))
      expect(tag, what).toContain(`nonce="${nonce}"`);
  }
}

describe.concurrent("every page, in both languages, as each caller it is for", () => {
  test.each(PAGES)("$name ($path)", async ({ section, name, path: pattern }) => {
    const answers = { ...SECTION_RULES[section], ...EXCEPTIONS[name] };
    for (const locale of LOCALES) {
      const path = pagePath(name, pattern, locale);
      for (const [caller, expected] of Object.entries(answers) as [Caller, Answer][]) {
        const response = await get(main, path, callers.cookies[caller]);
        await expectPageAnswer(response, expected, { section, name, locale, path, caller, method: "GET" });
      }
    }
  });

  test.each(PAGES)(
    "HEAD $name answers a visitor as GET does, without a body",
    async ({ section, name, path: pattern }) => {
      const expected = { ...SECTION_RULES[section], ...EXCEPTIONS[name] }.visitor!;
      for (const locale of LOCALES) {
        const path = pagePath(name, pattern, locale);
        const response = await fetch(`${main.origin}${path}`, { method: "HEAD", redirect: "manual" });
        await expectPageAnswer(response, expected, { section, name, locale, path, caller: "visitor", method: "HEAD" });
      }
    },
  );

  test.each(PAGES)("$name takes GET, HEAD and POST only: 405 with Allow", async ({ name, path: pattern }) => {
    for (const locale of LOCALES) {
      const path = pagePath(name, pattern, locale);
      const response = await fetch(`${main.origin}${path}`, { method: "DELETE", redirect: "manual" });
      expect(response.status, `DELETE ${path}`).toBe(405);
      expect(response.headers.get("Allow"), `DELETE ${path}`).toBe("GET, HEAD, POST");
      expectPageHeaders(response, `DELETE ${path}`);
      await response.body?.cancel();
    }
  });

  test.each(PAGES.filter((entry) => entry.path !== ""))(
    "$name without its trailing slash is moved there, query kept",
    async ({ name, path: pattern }) => {
      for (const locale of LOCALES) {
        const path = pagePath(name, pattern, locale);
        const response = await fetch(`${main.origin}${path.slice(0, -1)}?from=contract`, { redirect: "manual" });
        expect(response.status, path).toBe(301);
        expect(response.headers.get("Location"), path).toBe(`${path}?from=contract`);
        expectPageHeaders(response, `GET ${path.slice(0, -1)}`);
        await response.body?.cancel();
      }
    },
  );
});

// Lists show their page links only past a page of rows: asked for one row a page, each staff list has a next page,
// and the texts its links show came with it (useTestServers fails a test whose page logged a missing text).
test.each(["/admin/audit-log/?limit=1", "/en/admin/audit-log/?limit=1", "/admin/?limit=1", "/en/admin/?limit=1"])(
  "the staff list %s links to its next page",
  async (path) => {
    const response = await get(main, path, callers.cookies.staff);
    expect(response.status, path).toBe(200);
    expect(await response.text(), path).toMatch(/<nav aria-label="[^"]+" class="admin-pagination">.*rel="next"/s);
  },
);

test("the route table and the API's contract name every route app/routes.ts serves", () => {
  const paths = (entries: RouteConfigEntry[], prefix = ""): string[] =>
    entries.flatMap((entry) => {
      const full = entry.path === undefined ? prefix : `${prefix}/${entry.path}`;
      return [...(entry.path === undefined ? [] : [full]), ...paths(entry.children ?? [], full)];
    });
  const apiPaths = paths(routes).filter((path) => path.startsWith("/api/"));
  const contractPaths = new Set([...API_ENDPOINTS.map((endpoint) => endpoint.path), "/api/openapi.json", "/api/*"]);
  expect(apiPaths.map((path) => path.replace(/:(\w+)/g, "{$1}")).filter((path) => !contractPaths.has(path))).toEqual(
    [],
  );
  const pageIds = new Set(LOCALES.flatMap((locale) => PAGES.map((entry) => `${locale}.${entry.name}`)));
  const routeIds = (entries: RouteConfigEntry[]): string[] =>
    entries.flatMap((entry) => [
      ...(entry.index || entry.path !== undefined ? [entry.id!] : []),
      ...routeIds(entry.children ?? []),
    ]);
  expect(
    routeIds(routes).filter((id) => !id.startsWith("api.") && !pageIds.has(id) && !WELL_KNOWN_PATHS.has(id)),
  ).toEqual([]);
});

/** The documents at RFC 8615's well-known addresses, by route id: answered exactly there, to anyone. */
const WELL_KNOWN_PATHS = new Map([["well-known.jwks", "/.well-known/jwks.json"]]);

test.each([...WELL_KNOWN_PATHS])("%s answers at exactly %s, without a redirect", async (_id, path) => {
  const response = await fetch(`${main.origin}${path}`, { redirect: "manual" });
  expect(response.status, path).toBe(200);
  expect(response.headers.get("Content-Type"), path).toMatch(/^application\/json/);
  expectCommonHeaders(response, path);
  expect(response.headers.getSetCookie(), path).toEqual([]);
  await response.body?.cancel();
});

// ---- the API -------------------------------------------------------------------------------------------------------

const ENDPOINTS = API_ENDPOINTS as readonly ApiEndpoint[];
/** Queries an endpoint cannot do without, each with its reason. */
const REQUIRED_QUERIES: Record<string, string> = {
  // The newsletter's addresses are downloaded one language at a time.
  adminExportEmailAddresses: "?locale=ja",
};
const apiPath = (endpoint: ApiEndpoint) =>
  endpoint.path.replace(/\{(\w+)\}/g, (_, key: string) => paramValues[key] ?? key) +
  (REQUIRED_QUERIES[endpoint.operationId] ?? "");

async function callApi(method: string, path: string, token?: string) {
  return fetch(`${main.origin}${path}`, {
    method,
    redirect: "manual",
    headers: { "Accept-Language": "en", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
}

/** The API's headers: JSON (or CSV), never stored, varying by Origin (CORS), the policy that allows nothing. */
function expectApiHeaders(response: Response, what: string, contentType = "application/json; charset=utf-8") {
  expect(response.headers.get("Content-Type"), what).toBe(contentType);
  expectNoStore(response, what);
  expect(response.headers.get("Content-Security-Policy"), what).toBe(API_POLICY);
  expect(response.headers.get("Vary") ?? "", `${what}: Vary`).toContain("Origin");
  expectCommonHeaders(response, what);
  expect(response.headers.getSetCookie(), `${what}: no cookies on the API`).toEqual([]);
}

async function expectErrorEnvelope(response: Response, what: string, status: number, code: string) {
  expect(response.status, what).toBe(status);
  expectApiHeaders(response, what);
  const envelope = ErrorEnvelopeSchema.parse(await response.json());
  expect(envelope.error.code, what).toBe(code);
}

describe.concurrent("every endpoint of the API's contract", () => {
  test.each(ENDPOINTS)("$method $path without a token: 401 envelope", async (endpoint) => {
    const what = `${endpoint.method} ${endpoint.path}`;
    await expectErrorEnvelope(
      await callApi(endpoint.method.toUpperCase(), apiPath(endpoint)),
      what,
      401,
      "unauthorized",
    );
  });

  // Reads only: the writes' successes belong to their own tests (member-api, admin-api), which own their rows.
  const reads = ENDPOINTS.filter((endpoint) => endpoint.method === "get");

  test.each(reads)("GET $path with a member's token", async (endpoint) => {
    const response = await callApi("GET", apiPath(endpoint), await callers.tokens.member());
    if (endpoint.access === "admin") {
      await expectErrorEnvelope(response, endpoint.path, 403, "staff_token_required");
    } else if (endpoint.access === "service") {
      // A member's token speaks for a member, never for a sibling service.
      await expectErrorEnvelope(response, endpoint.path, 401, "unauthorized");
    } else {
      await expectSuccess(endpoint, response);
    }
  });

  test.each(reads.filter((endpoint) => endpoint.access === "admin"))(
    "GET $path with staff's token",
    async (endpoint) => {
      await expectSuccess(endpoint, await callApi("GET", apiPath(endpoint), await callers.tokens.staff()));
    },
  );

  test.each(reads.filter((endpoint) => endpoint.access === "service"))(
    "GET $path with a sibling service's feed token",
    async (endpoint) => {
      await expectSuccess(endpoint, await callApi("GET", apiPath(endpoint), FEED_TOKEN));
    },
  );

  async function expectSuccess(endpoint: ApiEndpoint, response: Response) {
    expect(response.status, endpoint.path).toBe(endpoint.success.status);
    if (endpoint.success.mediaType === "text/csv") {
      expectApiHeaders(response, endpoint.path, "text/csv; charset=utf-8");
      expect(response.headers.get("Content-Disposition"), endpoint.path).toMatch(/^attachment; filename="[^"]+\.csv"/);
      await response.body?.cancel();
    } else {
      expectApiHeaders(response, endpoint.path);
      (endpoint.success.schema as z.ZodType).parse(await response.json());
    }
  }

  const byPath = new Map<string, ApiEndpoint[]>();
  for (const endpoint of ENDPOINTS) byPath.set(endpoint.path, [...(byPath.get(endpoint.path) ?? []), endpoint]);
  test.each([...byPath.keys()])("%s answers a method it does not take with 405 and Allow", async (path) => {
    const endpoints = byPath.get(path)!;
    const response = await callApi("PUT", apiPath(endpoints[0]!), await callers.tokens.staff());
    await expectErrorEnvelope(response, `PUT ${path}`, 405, "method_not_allowed");
    const allowed = (response.headers.get("Allow") ?? "").split(/,\s*/);
    for (const endpoint of endpoints) expect(allowed, path).toContain(endpoint.method.toUpperCase());
  });

  test("the OpenAPI document is public JSON", async () => {
    const response = await callApi("GET", "/api/openapi.json");
    expect(response.status).toBe(200);
    expectApiHeaders(response, "/api/openapi.json");
    expect(await response.json()).toMatchObject({ openapi: expect.stringMatching(/^3\./), paths: expect.any(Object) });
  });

  test("a path under /api/ that the contract does not have: 404 envelope", async () => {
    await expectErrorEnvelope(await callApi("GET", "/api/no-such-endpoint"), "/api/no-such-endpoint", 404, "not_found");
  });
});
