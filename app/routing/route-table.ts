import { type Locale, pathnameForLocale } from "../i18n/locales";

/**
 * The one table of localized pages. app/routes.ts turns it into a Japanese (unprefixed) and an English (/en/)
 * route for each entry, so the two languages can never drift apart. Route names are
 * what guards and `to` parameters use.
 */
export const ROUTE_SECTIONS = [
  {
    id: "default",
    layout: "layouts/default-layout.tsx",
    pages: [
      { name: "index", path: "", file: "routes/home.tsx" },
      { name: "docs-terms-of-use", path: "docs/terms-of-use", file: "routes/docs/terms-of-use.tsx" },
      {
        name: "docs-terms-of-use-shinkenchiku-id",
        path: "docs/terms-of-use/shinkenchiku-id",
        file: "routes/docs/terms-of-use-id.tsx",
      },
      {
        name: "docs-terms-of-use-shinkenchiku-online",
        path: "docs/terms-of-use/shinkenchiku-online",
        file: "routes/docs/terms-of-use-online.tsx",
      },
      // The token is optional (spec): a sibling service may link to the policy with one; the page is the same.
      { name: "docs-privacy-policy", path: "docs/privacy-policy/:token?", file: "routes/docs/privacy-policy.tsx" },
      { name: "auth", path: "auth", file: "routes/auth/index.tsx" },
      { name: "auth-sign-in", path: "auth/sign-in", file: "routes/auth/sign-in.tsx" },
      // An invited member's first sign-in: the temporary password worked, now their own password (Cognito's
      // NEW_PASSWORD_REQUIRED challenge).
      { name: "auth-new-password", path: "auth/sign-in/new-password", file: "routes/auth/new-password.tsx" },
      { name: "auth-sign-out", path: "auth/sign-out", file: "routes/auth/sign-out.tsx" },
      { name: "auth-forgot-password", path: "auth/forgot-password", file: "routes/auth/forgot-password.tsx" },
      { name: "auth-sign-up", path: "auth/sign-up", file: "routes/auth/sign-up.tsx" },
      // Without its token (a link cut short) the page says the link is invalid, rather than the site's 404.
      { name: "email-update", path: "email-update/:token?", file: "routes/email-update.tsx" },
      { name: "docs-api", path: "docs/api", file: "routes/docs/api-reference.tsx" },
      { name: "not-found", path: "*", file: "routes/not-found.tsx" },
    ],
  },
  {
    // Members only: the layout's middleware sends anyone else to sign-in with `to=<route name>`.
    id: "member",
    layout: "layouts/member-layout.tsx",
    pages: [
      { name: "my-profile", path: "my/profile", file: "routes/my/profile.tsx" },
      { name: "my-profile-edit", path: "my/profile/edit", file: "routes/my/profile-edit.tsx" },
      { name: "my-email-edit", path: "my/email/edit", file: "routes/my/email-edit.tsx" },
      { name: "my-password-edit", path: "my/password/edit", file: "routes/my/password-edit.tsx" },
      { name: "my-devices", path: "my/devices", file: "routes/my/devices.tsx" },
      { name: "my-withdrawal", path: "my/withdrawal", file: "routes/my/withdrawal.tsx" },
    ],
  },
  {
    // Staff only: the layout sends visitors to sign-in, an ended session to /, and answers 403 to other members.
    id: "staff",
    layout: "layouts/admin-layout.tsx",
    pages: [
      { name: "admin", path: "admin", file: "routes/admin/overview.tsx" },
      { name: "admin-users", path: "admin/users", file: "routes/admin/open-member.tsx" },
      { name: "admin-user", path: "admin/users/:sub", file: "routes/admin/member.tsx" },
      { name: "admin-audit-log", path: "admin/audit-log", file: "routes/admin/audit-log.tsx" },
      { name: "admin-downloads", path: "admin/downloads", file: "routes/admin/downloads.tsx" },
      // The downloads themselves (users.csv, …): resource routes the page's GET forms submit to.
      { name: "admin-download", path: "admin/downloads/:file", file: "routes/admin/downloads-file.ts" },
      // The CSV import: upload and dry run, the template, a job's progress, its failed rows. "template" is matched
      // before ":id" (React Router ranks static segments first).
      { name: "admin-csv-import", path: "admin/csv-import", file: "routes/admin/csv-import-upload.tsx" },
      {
        name: "admin-csv-import-template",
        path: "admin/csv-import/template",
        file: "routes/admin/csv-import-template.ts",
      },
      { name: "admin-csv-import-job", path: "admin/csv-import/:id", file: "routes/admin/csv-import-progress.tsx" },
      {
        name: "admin-csv-import-failed-rows",
        path: "admin/csv-import/:id/failed-rows",
        file: "routes/admin/csv-import-failed-rows-download.ts",
      },
    ],
  },
  {
    // Internal tools: development and preview only (the layout's middleware answers 404 in production).
    id: "dev-tools",
    layout: "layouts/dev-tools-layout.tsx",
    pages: [
      { name: "demo", path: "demo", file: "routes/dev/demo.tsx" },
      { name: "rebranding-debugs", path: "rebranding-debugs", file: "routes/dev/rebranding-debugs.tsx" },
      {
        name: "rebranding-debugs-page",
        path: "rebranding-debugs/:page",
        file: "routes/dev/rebranding-debugs-page.tsx",
      },
      { name: "dev-mailbox", path: "__dev/mailbox", file: "routes/dev/mailbox.tsx" },
    ],
  },
] as const;

export type RouteName = (typeof ROUTE_SECTIONS)[number]["pages"][number]["name"];

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

/** The route name from a route id ("en.index" -> "index"). */
export function routeNameFromId(id: string): string {
  return id.slice(id.indexOf(".") + 1);
}

/** The URL of a named page in a locale, always with the trailing slash. */
export function pathFor(name: RouteName, locale: Locale, params: Record<string, string> = {}): string {
  const pattern = PATH_BY_NAME.get(name) ?? "";
  const filled = pattern.replace(PARAM_WITH_SLASH, (_, slash: string, key: string, optional: string) =>
    optional && !params[key] ? "" : `${slash}${encodeURIComponent(params[key] ?? "")}`,
  );
  return pathnameForLocale(filled === "" ? "/" : `/${filled}/`, locale);
}
