import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { localeFromAcceptLanguage, localeFromPathname, pathnameForLocale } from "~/i18n/locales";
import { getInstance, getLocale, i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import { decideCanonicalUrl } from "~/routing/canonical-url";
import { pathFor } from "~/routing/route-table";
import enAuth from "../../../locales/en/auth.json";
import jaAuth from "../../../locales/ja/auth.json";

function decide(href: string, rememberedLocale?: string, acceptLanguage: string | null = null) {
  return decideCanonicalUrl({ url: new URL(href, "http://id.test"), rememberedLocale, acceptLanguage });
}

test("paths map between languages", () => {
  expect(localeFromPathname("/")).toBe("ja");
  expect(localeFromPathname("/en/")).toBe("en");
  expect(localeFromPathname("/en")).toBe("en");
  expect(localeFromPathname("/english/")).toBe("ja");
  // React Router matches paths in any case, so /EN/ is an English route and must be in English.
  expect(localeFromPathname("/EN/my/profile/")).toBe("en");
  expect(localeFromPathname("/En")).toBe("en");
  expect(pathnameForLocale("/docs/privacy-policy/", "en")).toBe("/en/docs/privacy-policy/");
  expect(pathnameForLocale("/en/docs/privacy-policy/", "ja")).toBe("/docs/privacy-policy/");
  expect(pathnameForLocale("/en/", "ja")).toBe("/");
  expect(pathnameForLocale("/en/", "en")).toBe("/en/");
  expect(pathFor("docs-privacy-policy", "en")).toBe("/en/docs/privacy-policy/");
  expect(pathFor("index", "ja")).toBe("/");
  expect(pathFor("rebranding-debugs-page", "ja", { page: "a-1" })).toBe("/rebranding-debugs/a-1/");
});

test("Accept-Language honours q-values and falls back to Japanese", () => {
  expect(localeFromAcceptLanguage("en-US,en;q=0.9,ja;q=0.8")).toBe("en");
  expect(localeFromAcceptLanguage("ja,en;q=0.9")).toBe("ja");
  expect(localeFromAcceptLanguage("fr-FR,en;q=0.5,ja;q=0.7")).toBe("ja");
  expect(localeFromAcceptLanguage("de,fr")).toBe("ja");
  expect(localeFromAcceptLanguage("en;q=0")).toBe("ja");
  expect(localeFromAcceptLanguage(null)).toBe("ja");
});

test("a missing trailing slash is added and the query kept", () => {
  expect(decide("/docs/privacy-policy?x=1&y=2")).toEqual({
    kind: "redirect",
    location: "/docs/privacy-policy/?x=1&y=2",
    permanent: true,
  });
  expect(decide("/en")).toEqual({ kind: "redirect", location: "/en/", permanent: true });
});

test("?locale= switches to the same page in that language, keeps other parameters and is remembered", () => {
  expect(decide("/docs/terms-of-use/?locale=en&from=menu")).toEqual({
    kind: "redirect",
    location: "/en/docs/terms-of-use/?from=menu",
    rememberLocale: "en",
  });
  expect(decide("/en/docs/terms-of-use/?locale=ja")).toEqual({
    kind: "redirect",
    location: "/docs/terms-of-use/",
    rememberLocale: "ja",
  });
  expect(decide("/docs/?locale=fr")).toEqual({ kind: "redirect", location: "/docs/" });
});

test("the browser language is used at the root only, and a remembered choice wins over it", () => {
  expect(decide("/", undefined, "en-GB,en")).toEqual({ kind: "redirect", location: "/en/", rememberLocale: "en" });
  expect(decide("/", undefined, "ja")).toEqual({ kind: "continue" });
  expect(decide("/", "ja", "en")).toEqual({ kind: "continue" });
  expect(decide("/", "en", "ja")).toEqual({ kind: "redirect", location: "/en/", rememberLocale: "en" });
  expect(decide("/docs/terms-of-use/", undefined, "en")).toEqual({ kind: "continue" });
  expect(decide("/en/", undefined, "ja")).toEqual({ kind: "continue" });
});

/** The locale and the i18next instance remix-i18next's middleware gives a request, as loaders and actions see them. */
async function requestLanguage(href: string, headers: Record<string, string> = {}) {
  const context = new RouterContextProvider();
  const request = new Request(new URL(href, "http://id.test"), { headers });
  await i18nextMiddleware({ request, context, params: {}, unstable_pattern: "" } as never, async () => new Response());
  return { locale: getLocale(context), title: getInstance(context).t("auth:signIn.title") };
}

test("a page's language is its path's alone; an API call's is its Accept-Language", async () => {
  const english = { locale: "en", title: enAuth.signIn.title };
  const japanese = { locale: "ja", title: jaAuth.signIn.title };
  expect(await requestLanguage("/en/sign-in/")).toEqual(english);
  expect(await requestLanguage("/EN/sign-in/")).toEqual(english);
  // The switch, the remembered choice and the browser's language only decide redirects (above), never a page's text.
  const elsewhere = { Cookie: "i18n_redirected=en", "Accept-Language": "en" };
  expect(await requestLanguage("/sign-in/?locale=en", elsewhere)).toEqual(japanese);
  expect(await requestLanguage("/english/")).toEqual(japanese);
  expect(await requestLanguage("/api/user-devices", { "Accept-Language": "en-US,ja;q=0.5" })).toEqual(english);
  expect(await requestLanguage("/api/user-devices", { "Accept-Language": "fr" })).toEqual(japanese);
  expect(await requestLanguage("/api/user-devices")).toEqual(japanese);
});
