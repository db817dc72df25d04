import i18next from "i18next";
import { DEFAULT_LOCALE, type Locale } from "./locales";
import { NAMESPACES, RESOURCES } from "./resources";

/** i18next's `t` for one language, with namespaced keys ("api:errors.not_found"). */
export type Translate = (key: string, values?: Record<string, string>) => string;

/**
 * One i18next instance for the whole process, initialised once, for text made outside a page (API error messages,
 * mail): creating an instance per call (as the pages' middleware does per request) would cost the API a sixth of
 * its CPU.
 */
const translator = i18next.createInstance();
void translator.init({
  resources: RESOURCES,
  ns: NAMESPACES,
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  // Plain text (JSON bodies, text mail): nothing to escape.
  interpolation: { escapeValue: false },
});

export function translatorFor(locale: Locale): Translate {
  return translator.getFixedT(locale) as unknown as Translate;
}
