import { type Locale, pathnameForLocale } from "../i18n/locales";

/**
 * The one table of localized pages. app/routes.ts turns it into a Japanese (unprefixed) and an English (/en/)
 * route for each entry, so the two languages can never drift apart. Route names are what guards and `to`
 * parameters use, and each page's module is named after its route and section (app/routes.ts): the table holds no
 * file names because it is in every page's JavaScript (pathFor), and the browser has no use for them.
 */
export const ROUTE_SECTIONS = [
  {
    id: "default",
    pages: [
      { name: "index", path: "" },
      { name: "docs-terms-of-use", path: "docs/terms-of-use" },
      { name: "docs-terms-of-use-shinkenchiku-id", path: "docs/terms-of-use/shinkenchiku-id" },
      { name: "docs-terms-of-use-shinkenchiku-online", path: "docs/terms-of-use/shinkenchiku-online" },
      // The token is optional (spec): a sibling service may link to the policy with one; the page is the same.
      { name: "docs-privacy-policy", path: "docs/privacy-policy/:token?" },
      { name: "auth", path: "auth" },
      { name: "auth-sign-in", path: "auth/sign-in" },
      // An invited member's first sign-in: the temporary password worked, now their own password (Cognito's
      // NEW_PASSWORD_REQUIRED challenge).
      { name: "auth-new-password", path: "auth/sign-in/new-password" },
      // A member with 2-step verification: the password worked, now the authenticator app's code or a recovery code
      // (Cognito's SOFTWARE_TOKEN_MFA challenge).
      { name: "auth-two-step", path: "auth/sign-in/two-step" },
      { name: "auth-sign-out", path: "auth/sign-out" },
      { name: "auth-forgot-password", path: "auth/forgot-password" },
      { name: "auth-sign-up", path: "auth/sign-up" },
      // Without its token (a link cut short) the page says the link is invalid, rather than the site's 404.
      { name: "email-update", path: "email-update/:token?" },
      // A sign-in alert mail's link: ends the sign-in it told of, without signing in (the token is optional as above).
      { name: "sign-in-alert", path: "sign-in-alert/:token?" },
      // The newsletter's one-click unsubscribe link (the e-mail-address export's): no sign-in; the token is signed.
      { name: "newsletter-unsubscribe", path: "newsletter/unsubscribe/:token?" },
      { name: "docs-api", path: "docs/api" },
      // The staff area's own sign-in (password and authenticator code, through the staff app client), which the
      // staff pages send anyone without a staff session to; `mode=confirm` asks again before a high-impact action.
      // Its sign-out ends the staff session and the member session.
      { name: "admin-sign-in", path: "admin/sign-in" },
      { name: "not-found", path: "*" },
    ],
  },
  {
    // Members only: the layout's middleware sends anyone else to sign-in with `to=<route name>`.
    id: "member",
    pages: [
      { name: "my-profile", path: "my/profile" },
      { name: "my-profile-edit", path: "my/profile/edit" },
      { name: "my-email-edit", path: "my/email/edit" },
      { name: "my-password-edit", path: "my/password/edit" },
      { name: "my-devices", path: "my/devices" },
      { name: "my-security", path: "my/security" },
      // 2-step verification: setting the authenticator app up, recovery codes, turning it off (behind the password step).
      { name: "my-security-authenticator", path: "my/security/authenticator" },
      { name: "my-withdrawal", path: "my/withdrawal" },
      // The password step before a sensitive change (`to`: the page to return to), and the member's copy of their
      // data: the page, and the JSON download it links to.
      { name: "my-reauthentication", path: "my/reauthentication" },
      { name: "my-data", path: "my/data" },
      { name: "my-data-download", path: "my/data/download" },
    ],
  },
  {
    // Staff only: the layout sends visitors to sign-in, an ended session to /, and answers 403 to other members.
    id: "staff",
    pages: [
      { name: "admin", path: "admin" },
      { name: "admin-users", path: "admin/users" },
      { name: "admin-user", path: "admin/users/:sub" },
      { name: "admin-audit-log", path: "admin/audit-log" },
      { name: "admin-downloads", path: "admin/downloads" },
      // The downloads themselves (users.csv, …): resource routes the page's GET forms submit to.
      { name: "admin-download", path: "admin/downloads/:file" },
      // The CSV import: upload and dry run, the template, the columns' reference, a job's progress, its failed rows.
      // "template" and "columns" are matched before ":id" (React Router ranks static segments first).
      { name: "admin-csv-import", path: "admin/csv-import" },
      { name: "admin-csv-import-template", path: "admin/csv-import/template" },
      { name: "admin-csv-import-columns", path: "admin/csv-import/columns" },
      { name: "admin-csv-import-job", path: "admin/csv-import/:id" },
      { name: "admin-csv-import-failed-rows", path: "admin/csv-import/:id/failed-rows" },
      // The sibling services' event deliveries: each endpoint's state, its recent deliveries, redelivery.
      { name: "admin-events", path: "admin/events" },
    ],
  },
  {
    // Internal tools: development and preview only (the layout's middleware answers 404 in production).
    id: "dev-tools",
    pages: [
      { name: "demo", path: "demo" },
      { name: "rebranding-debugs", path: "rebranding-debugs" },
      { name: "rebranding-debugs-page", path: "rebranding-debugs/:page" },
      { name: "dev-mailbox", path: "__dev/mailbox" },
      { name: "dev-events", path: "__dev/events" },
    ],
  },
] as const;

export type RouteName = (typeof ROUTE_SECTIONS)[number]["pages"][number]["name"];
export type SectionId = (typeof ROUTE_SECTIONS)[number]["id"];

const PATH_BY_NAME = new Map<string, string>(
  ROUTE_SECTIONS.flatMap((section) => section.pages.map((page) => [page.name, page.path] as const)),
);

export function isRouteName(value: string): value is RouteName {
  return PATH_BY_NAME.has(value) && value !== "not-found";
}

/** A parameter the path cannot do without (`:sub`; `:token?` is optional). */
const REQUIRED_PARAM = /:\w+(?![\w?])/;
/** A parameter with the slash before it, which goes with it when an optional parameter is left out. */
const PARAM_WITH_SLASH = /(\/?):(\w+)(\??)/g;

/** The URL of a named page that needs no parameters, or null: what a `to=<route name>` may point at. */
export function pathForRouteName(name: string, locale: Locale): string | null {
  const pattern = PATH_BY_NAME.get(name);
  if (!isRouteName(name) || pattern === undefined || REQUIRED_PARAM.test(pattern)) return null;
  return pathFor(name, locale);
}

/** The name of the parameterless page at a pathname ("/en/my/profile/" -> "my-profile"), or null. */
export function routeNameForPathname(pathname: string): RouteName | null {
  for (const name of PATH_BY_NAME.keys()) {
    if (isRouteName(name) && (pathForRouteName(name, "ja") === pathname || pathForRouteName(name, "en") === pathname)) {
      return name;
    }
  }
  return null;
}

/** The route id React Router knows a page by, e.g. "en.index". */
export function routeId(locale: Locale, name: string): string {
  return `${locale}.${name}`;
}

/** The URL of a named page in a locale, always with the trailing slash. */
export function pathFor(name: RouteName, locale: Locale, params: Record<string, string> = {}): string {
  const pattern = PATH_BY_NAME.get(name) ?? "";
  const filled = pattern.replace(PARAM_WITH_SLASH, (_, slash: string, key: string, optional: string) =>
    optional && !params[key] ? "" : `${slash}${encodeURIComponent(params[key] ?? "")}`,
  );
  return pathnameForLocale(filled === "" ? "/" : `/${filled}/`, locale);
}
