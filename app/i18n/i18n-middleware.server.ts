import type { RouterContextProvider } from "react-router";
import { createI18nextMiddleware } from "remix-i18next/middleware";
import {
  DEFAULT_LOCALE,
  LOCALES,
  type Locale,
  isLocale,
  localeFromAcceptLanguage,
  localeFromPathname,
} from "./locales";
import { I18NEXT_OPTIONS } from "./translator.server";
import { isApiPath } from "~/routing/api-paths";

/**
 * The request's language. A page's comes from its path alone (/en/... is English, everything else Japanese; a data
 * request's path, which keeps its `.data` suffix here, starts the same): the ?locale= switch, the i18n_redirected
 * cookie and Accept-Language only decide where to redirect (app/routing/canonical-url.ts). An API call names no
 * language in its path: its Accept-Language decides, as sibling services forward it, Japanese by default.
 */
async function findLocale(request: Request): Promise<Locale> {
  // remix-i18next passes the request alone; its path's start is the page's, `.data` suffix or not.
  const { pathname } = new URL(request.url);
  return isApiPath(pathname)
    ? localeFromAcceptLanguage(request.headers.get("Accept-Language"))
    : localeFromPathname(pathname);
}

/**
 * remix-i18next's middleware: for every page request (the root's middleware) and every API call (the API's route
 * wrapper runs it, app/api/api-handler.server.ts) it finds the language and makes the request's i18next instance,
 * which loaders, actions, the API's handlers and the mails they send translate with.
 */
const [i18nextMiddleware, getLocaleString, getInstance] = createI18nextMiddleware({
  detection: { supportedLanguages: [...LOCALES], fallbackLanguage: DEFAULT_LOCALE, order: ["custom"], findLocale },
  i18next: I18NEXT_OPTIONS,
});

export { i18nextMiddleware, getInstance };

/** The request's locale, narrowed to the two the app supports. */
export function getLocale(context: Readonly<RouterContextProvider>): Locale {
  const locale = getLocaleString(context);
  return isLocale(locale) ? locale : DEFAULT_LOCALE;
}
