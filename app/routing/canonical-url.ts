import {
  type Locale,
  isLocale,
  localeFromAcceptLanguage,
  localeFromPathname,
  pathnameForLocale,
} from "~/i18n/locales";

export const LOCALE_QUERY_PARAM = "locale";

export type CanonicalDecision =
  | { kind: "continue" }
  | { kind: "redirect"; location: string; permanent?: boolean; rememberLocale?: Locale };

/**
 * Where a page request should really go, before any page runs:
 * 1. every page path ends with "/" (the redirect keeps the query);
 * 2. ?locale=en|ja switches to the same page in that language and remembers the choice;
 * 3. at the root only, a remembered choice or else the browser's language picks /en/ or /.
 * Pure, so the rules are unit-tested without a server.
 */
export function decideCanonicalUrl(input: {
  url: URL;
  rememberedLocale: string | undefined;
  acceptLanguage: string | null;
}): CanonicalDecision {
  const { url } = input;
  if (!url.pathname.endsWith("/")) {
    return { kind: "redirect", location: `${url.pathname}/${url.search}`, permanent: true };
  }

  const requested = url.searchParams.get(LOCALE_QUERY_PARAM);
  if (requested !== null) {
    const query = new URLSearchParams(url.search);
    query.delete(LOCALE_QUERY_PARAM);
    const search = query.size > 0 ? `?${query}` : "";
    if (!isLocale(requested)) return { kind: "redirect", location: `${url.pathname}${search}` };
    return {
      kind: "redirect",
      location: `${pathnameForLocale(url.pathname, requested)}${search}`,
      rememberLocale: requested,
    };
  }

  if (url.pathname === "/") {
    const preferred = isLocale(input.rememberedLocale)
      ? input.rememberedLocale
      : localeFromAcceptLanguage(input.acceptLanguage);
    if (preferred !== localeFromPathname(url.pathname)) {
      return {
        kind: "redirect",
        location: `${pathnameForLocale(url.pathname, preferred)}${url.search}`,
        rememberLocale: preferred,
      };
    }
  }
  return { kind: "continue" };
}
