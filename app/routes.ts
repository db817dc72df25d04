import { existsSync } from "node:fs";
import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";
import { type Locale } from "./i18n/locales";
import { ROUTE_SECTIONS, type RouteName, type SectionId, routeId } from "./routing/route-table";

// Every module's file follows from its route's name, so the table in route-table.ts (names and paths, shipped to
// the browser) is all there is to read: tests/unit/architecture/route-module-names.test.ts fails when a file and its name part.
// A page is app/routes/<section id>/<route name>.tsx, or .ts for a resource route that renders nothing (a download).
// A section's layout is app/layouts/<section id>-layout.tsx.
// An API route with id api.<a>.<b> is app/routes/api/<a>/<b>.ts.

/** The page's module, relative to app/ as React Router wants it. */
function pageModule(section: SectionId, name: RouteName): string {
  const candidates = [".tsx", ".ts"].map((extension) => `routes/${section}/${name}${extension}`);
  const file = candidates.find((candidate) => existsSync(new URL(candidate, import.meta.url)));
  if (file === undefined) throw new Error(`The page "${name}" has no module: create app/${candidates[0]}.`);
  return file;
}

function localizedRoutes(locale: Locale) {
  return ROUTE_SECTIONS.map((section) =>
    layout(
      `layouts/${section.id}-layout.tsx`,
      { id: routeId(locale, section.id) },
      section.pages.map((page) =>
        page.path === ""
          ? index(pageModule(section.id, page.name), { id: routeId(locale, page.name) })
          : route(page.path, pageModule(section.id, page.name), { id: routeId(locale, page.name) }),
      ),
    ),
  );
}

/** An API route, its module named after its id. */
function apiRoute(path: string, id: `api.${string}`) {
  return route(path, `routes/${id.replaceAll(".", "/")}.ts`, { id });
}

/**
 * The member API and the admin API (app/api/contract.ts lists their endpoints): resource routes, one language
 * (messages follow Accept-Language), no trailing slash, bearer tokens instead of cookies (an admin's for
 * /api/admin/*). The splat answers JSON 404s. They are children of the root like every route, and skip its page
 * middleware (app/middleware/pages-only.server.ts).
 */
const apiRoutes = prefix("api", [
  apiRoute("openapi.json", "api.openapi"),
  apiRoute("user-availability", "api.user-availability"),
  apiRoute("refresh-user", "api.refresh-user"),
  apiRoute("user-registration", "api.user-registration"),
  apiRoute("email-updates", "api.email-updates"),
  apiRoute("email-updates/:token", "api.email-update-confirm"),
  apiRoute("withdrawal-reasons", "api.withdrawal-reasons"),
  apiRoute("user-devices", "api.user-devices"),
  apiRoute("user-devices/:id", "api.user-device"),
  apiRoute("old-safari-device", "api.old-safari-device"),
  apiRoute("events", "api.events"),
  ...prefix("admin", [
    apiRoute("users", "api.admin.users"),
    apiRoute("users/count", "api.admin.user-count"),
    apiRoute("users/:sub", "api.admin.user"),
    apiRoute("user-pool", "api.admin.user-pool"),
    apiRoute("audit-events", "api.admin.audit-events"),
    apiRoute("users/:sub/refresh", "api.admin.user-refresh"),
    apiRoute("email-updates/:sub", "api.admin.user-email-update"),
    apiRoute("users/:sub/sign-out", "api.admin.user-sign-out"),
    apiRoute("users/:sub/disable", "api.admin.user-disable"),
    apiRoute("users/:sub/enable", "api.admin.user-enable"),
    apiRoute("users/:sub/two-step-verification/disable", "api.admin.user-two-step-off"),
    apiRoute("users.csv", "api.admin.users-csv"),
    apiRoute("downloads/withdrawal-reasons", "api.admin.withdrawal-reasons-csv"),
    apiRoute("downloads/email-addresses", "api.admin.email-addresses-csv"),
    apiRoute("csv-import/user-create", "api.admin.csv-import"),
    apiRoute("csv-import/jobs/:id", "api.admin.csv-import-job"),
    apiRoute("csv-import/jobs/:id/cancel", "api.admin.csv-import-cancel"),
    apiRoute("csv-import/jobs/:id/failed-rows.csv", "api.admin.csv-import-failed-rows"),
  ]),
  apiRoute("*", "api.not-found"),
]);

/**
 * Documents other software fetches at fixed addresses (RFC 8615): exactly there, no trailing slash, no language, and
 * none of the pages' middleware (app/middleware/pages-only.server.ts). The module of id well-known.<name> is
 * app/routes/well-known/<name>.ts.
 */
const wellKnownRoutes = [route(".well-known/jwks.json", "routes/well-known/jwks.ts", { id: "well-known.jwks" })];

export default [
  ...apiRoutes,
  ...wellKnownRoutes,
  ...localizedRoutes("ja"),
  ...prefix("en", localizedRoutes("en")),
] satisfies RouteConfig;
