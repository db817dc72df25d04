import { type Locale, isLocale, localeFromAcceptLanguage, localeFromPathname, pathnameForLocale } from "~/i18n/locales";

export const LOCALE_QUERY_PARAM = "locale";

export type CanonicalDecision =
  { kind: "continue" } | { kind: "redirect"; location: string; permanent?: boolean; rememberLocale?: Locale };

/**
 * Where a page request should really go, before any page runs:
 * 1. every page path starts with one "/" and ends with "/" (the redirect keeps the query);
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
  const pathname = withOneLeadingSlash(url.pathname);
  if (pathname !== url.pathname || !pathname.endsWith("/")) {
    const slashed = pathname.endsWith("/") ? pathname : `${pathname}/`;
    return { kind: "redirect", location: `${slashed}${url.search}`, permanent: true };
  }

  const requested = url.searchParams.get(LOCALE_QUERY_PARAM);
  if (requested !== null) {
    const query = new URLSearchParams(url.search);
    query.delete(LOCALE_QUERY_PARAM);
    const search = query.size > 0 ? `?${query}` : "";
    if (!isLocale(requested)) return { kind: "redirect", location: `${url.pathname}${search}` };
    return {
      kind: "redirect",
      location: `${withOneLeadingSlash(pathnameForLocale(url.pathname, requested))}${search}`,
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
        location: `${withOneLeadingSlash(pathnameForLocale(url.pathname, preferred))}${url.search}`,
        rememberLocale: preferred,
      };
    }
  }
  return { kind: "continue" };
}

/**
 * A Location of "//host/…" is another site to a browser (and "/\host" too: browsers read "\" as "/"), so
 * a redirect to any path we were sent must start with exactly one slash: "//evil.example" becomes
 * "/evil.example/", a page of ours (a 404), never a redirect away.
 */
function withOneLeadingSlash(pathname: string): string {
  return pathname.replace(/^[/\\]+/, "/");
}
