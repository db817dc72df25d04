import type { RouteConfigEntry } from "@react-router/dev/routes";
import routes from "~/routes";

/** Every route app/routes.ts declares, flattened: its id and its module's file, relative to app/. */
export function routeModules(): { id: string; file: string }[] {
  const flatten = (entries: RouteConfigEntry[]): { id: string; file: string }[] =>
    entries.flatMap((entry) => [{ id: entry.id!, file: entry.file }, ...flatten(entry.children ?? [])]);
  return flatten(routes);
}

/** Each page's module by route name (the Japanese routes; the English ones share the modules). */
export function pageModules(): Map<string, string> {
  return new Map(
    routeModules()
      .filter(({ id }) => id.startsWith("ja."))
      .map(({ id, file }) => [id.slice("ja.".length), file]),
  );
}
