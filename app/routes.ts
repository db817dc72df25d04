import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";
import { type Locale } from "./i18n/locales";
import { LAYOUT_FILES, PAGE_FILES } from "./routing/route-files";
import { ROUTE_SECTIONS, routeId } from "./routing/route-table";

function localizedRoutes(locale: Locale) {
  return ROUTE_SECTIONS.map((section) =>
    layout(
      LAYOUT_FILES[section.id],
      { id: routeId(locale, section.id) },
      section.pages.map((page) =>
        page.path === ""
          ? index(PAGE_FILES[page.name], { id: routeId(locale, page.name) })
          : route(page.path, PAGE_FILES[page.name], { id: routeId(locale, page.name) }),
      ),
    ),
  );
}

/**
 * The member API and the admin API (app/api/contract.ts lists their endpoints): resource routes, one language
 * (messages follow Accept-Language), no trailing slash, bearer tokens instead of cookies (an admin's for
 * /api/admin/*). The splat answers JSON 404s. React Router serves them through app/server/api-lane.ts, as top-level
 * routes without the root's page middleware.
 */
const apiRoutes = prefix("api", [
  route("openapi.json", "routes/api/openapi-json.ts", { id: "api.openapi" }),
  route("user-availability", "routes/api/user-availability.ts", { id: "api.user-availability" }),
  route("refresh-user", "routes/api/refresh-user.ts", { id: "api.refresh-user" }),
  route("user-registration", "routes/api/user-registration.ts", { id: "api.user-registration" }),
  route("email-updates", "routes/api/email-updates.ts", { id: "api.email-updates" }),
  route("email-updates/:token", "routes/api/email-update-confirm.ts", { id: "api.email-update-confirm" }),
  route("withdrawal-reasons", "routes/api/withdrawal-reasons.ts", { id: "api.withdrawal-reasons" }),
  route("user-devices", "routes/api/user-devices.ts", { id: "api.user-devices" }),
  route("user-devices/:id", "routes/api/user-device.ts", { id: "api.user-device" }),
  route("old-safari-device", "routes/api/old-safari-device.ts", { id: "api.old-safari-device" }),
  ...prefix("admin", [
    route("users", "routes/api/admin/users.ts", { id: "api.admin.users" }),
    route("users/count", "routes/api/admin/user-count.ts", { id: "api.admin.user-count" }),
    route("users/:sub", "routes/api/admin/user.ts", { id: "api.admin.user" }),
    route("user-pool", "routes/api/admin/user-pool.ts", { id: "api.admin.user-pool" }),
    route("audit-events", "routes/api/admin/audit-events.ts", { id: "api.admin.audit-events" }),
    route("users/:sub/refresh", "routes/api/admin/user-refresh.ts", { id: "api.admin.user-refresh" }),
    route("email-updates/:sub", "routes/api/admin/staff-email-change.ts", { id: "api.admin.email-update" }),
    route("users/:sub/sign-out", "routes/api/admin/user-sign-out.ts", { id: "api.admin.user-sign-out" }),
    route("users/:sub/disable", "routes/api/admin/user-disable.ts", { id: "api.admin.user-disable" }),
    route("users/:sub/enable", "routes/api/admin/user-enable.ts", { id: "api.admin.user-enable" }),
    route("users.csv", "routes/api/admin/users-csv.ts", { id: "api.admin.users-csv" }),
    route("downloads/withdrawal-reasons", "routes/api/admin/withdrawal-reasons-csv.ts", {
      id: "api.admin.withdrawal-reasons-csv",
    }),
    route("downloads/email-addresses", "routes/api/admin/email-addresses-csv.ts", {
      id: "api.admin.email-addresses-csv",
    }),
    route("csv-import/user-create", "routes/api/admin/csv-import-user-create.ts", { id: "api.admin.csv-import" }),
    route("csv-import/jobs/:id", "routes/api/admin/csv-import-job-status.ts", { id: "api.admin.csv-import-job" }),
    route("csv-import/jobs/:id/cancel", "routes/api/admin/csv-import-cancel.ts", { id: "api.admin.csv-import-cancel" }),
    route("csv-import/jobs/:id/failed-rows.csv", "routes/api/admin/csv-import-failed-rows.ts", {
      id: "api.admin.csv-import-failed-rows",
    }),
  ]),
  route("*", "routes/api/not-found.ts", { id: "api.not-found" }),
]);

export default [...apiRoutes, ...localizedRoutes("ja"), ...prefix("en", localizedRoutes("en"))] satisfies RouteConfig;
