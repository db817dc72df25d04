import { createI18nextMiddleware } from "remix-i18next/middleware";
import { DEFAULT_NAMESPACE, NAMESPACES, RESOURCES } from "~/i18n/resources";
import type { RouterContextProvider } from "react-router";
import { DEFAULT_LOCALE, LOCALES, type Locale, isLocale, localeFromPathname } from "~/i18n/locales";

/**
 * The request's language comes from its path alone (/en/... is English). The ?locale= switch, the
 * i18n_redirected cookie and Accept-Language only decide where to redirect (see locale-routing.server.ts).
 */
const [i18nextMiddleware, getLocaleString, getInstance] = createI18nextMiddleware({
  detection: {
    supportedLanguages: [...LOCALES],
    fallbackLanguage: DEFAULT_LOCALE,
    order: ["custom"],
    findLocale: async (request) => localeFromPathname(new URL(request.url).pathname),
  },
  i18next: {
    resources: RESOURCES,
    ns: NAMESPACES,
    defaultNS: DEFAULT_NAMESPACE,
    fallbackLng: DEFAULT_LOCALE,
    interpolation: { escapeValue: false },
  },
});

export { i18nextMiddleware, getInstance };

/** The request's locale, narrowed to the two the app supports. */
export function getLocale(context: Readonly<RouterContextProvider>): Locale {
  const locale = getLocaleString(context);
  return isLocale(locale) ? locale : DEFAULT_LOCALE;
}
