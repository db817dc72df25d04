import { createInstance, type i18n } from "i18next";
import { initReactI18next } from "react-i18next";
import { DEFAULT_LOCALE, type Locale } from "./locales";

/**
 * Namespaces the root loader sends to the browser with every page. Long texts (the legal documents) are not
 * here: their routes render them from loader data, so navigation does not carry them around.
 */
export const CLIENT_NAMESPACES = ["common", "errors", "home", "devtools"] as const;

/** A synchronous i18next instance over the resources the root loader sent, used on server and client alike. */
export function createClientI18n(locale: Locale, resources: Record<string, Record<string, unknown>>): i18n {
  const instance = createInstance();
  void instance.use(initReactI18next).init({
    lng: locale,
    fallbackLng: DEFAULT_LOCALE,
    resources: { [locale]: resources },
    ns: Object.keys(resources),
    defaultNS: "common",
    interpolation: { escapeValue: false },
    initAsync: false,
  });
  return instance;
}
