import i18next, { type i18n } from "i18next";
import { DEFAULT_LOCALE, LOCALES, type Locale } from "./locales";
import { DEFAULT_NAMESPACE, NAMESPACES, RESOURCES } from "./resources";

/** i18next's `t` for one language, with namespaced keys ("api:errors.not_found"). */
export type Translate = (key: string, values?: Record<string, string>) => string;

const OPTIONS = {
  resources: RESOURCES,
  ns: NAMESPACES,
  defaultNS: DEFAULT_NAMESPACE,
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  // Plain text (JSON bodies, text mail) and React, which escapes what it renders: nothing to escape here.
  interpolation: { escapeValue: false },
};

/**
 * One i18next instance per language for the whole process, initialised once (resources are bundled, so
 * initialisation is synchronous), for pages and for text made outside a page (API error messages, mail). Creating
 * an instance per call or per request would cost the API a sixth of its CPU and a page view a twentieth. Sharing
 * them is safe because nothing changes an instance's language or resources after this.
 */
const translators = Object.fromEntries(
  LOCALES.map((locale) => {
    const instance = i18next.createInstance();
    void instance.init({ ...OPTIONS, lng: locale });
    return [locale, instance];
  }),
) as Record<Locale, i18n>;

export function translatorFor(locale: Locale): Translate {
  return translators[locale].getFixedT(locale) as unknown as Translate;
}

/** The i18next instance whose language is `locale`, for a page request (app/middleware/i18n.server.ts). */
export function i18nextFor(locale: Locale): i18n {
  return translators[locale];
}
