import type { ServerBuild } from "react-router";
import { LOCALES } from "~/i18n/locales";
import { routeId } from "~/routing/route-table";

/**
 * The name the metrics give each route pattern React Router can match: a page's route-table name, the same in both
 * languages ("admin-user": its route id without the language, app/routing/route-table.ts), an API route's id
 * ("api.user-device"). A pattern ("en/admin/users/:sub") names a route, never a member: parameters stay placeholders.
 * Patterns are made as React Router makes the one it hands middleware: the non-empty paths from the root to the
 * matched route, joined with "/". Only routes without children can be matched last, so layouts have no name here.
 */
export function routeNamesByPattern(build: ServerBuild): ReadonlyMap<string, string> {
  const routes = build.routes;
  const parents = new Set(Object.values(routes).map((route) => route?.parentId));
  const names = new Map<string, string>();
  for (const [id, route] of Object.entries(routes)) {
    if (!route || parents.has(id)) continue;
    const paths: string[] = [];
    for (let current: typeof route | undefined = route; current; current = routes[current.parentId ?? ""]) {
      if (current.path) paths.unshift(current.path);
    }
    const pattern = paths.join("/").replace(/\/\/+/g, "/") || "/";
    names.set(pattern, nameOf(id));
  }
  return names;
}

/** "en.admin-user" → "admin-user"; an API route's id ("api.user-device") as it is. */
function nameOf(id: string): string {
  const locale = LOCALES.find((candidate) => id.startsWith(routeId(candidate, "")));
  return locale ? id.slice(routeId(locale, "").length) : id;
}
