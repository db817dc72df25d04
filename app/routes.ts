import { type RouteConfig, index, layout, prefix, route } from "@react-router/dev/routes";
import { type Locale } from "./i18n/locales";
import { ROUTE_SECTIONS, routeId } from "./routing/route-table";

function localizedRoutes(locale: Locale) {
  return ROUTE_SECTIONS.map((section) =>
    layout(
      section.layout,
      { id: routeId(locale, section.id) },
      section.pages.map((page) =>
        page.path === ""
          ? index(page.file, { id: routeId(locale, page.name) })
          : route(page.path, page.file, { id: routeId(locale, page.name) }),
      ),
    ),
  );
}

export default [
  ...localizedRoutes("ja"),
  ...prefix("en", localizedRoutes("en")),
] satisfies RouteConfig;
