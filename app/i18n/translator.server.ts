import i18next, { type InitOptions, type i18n } from "i18next";
import { DEFAULT_LOCALE, type Locale } from "./locales";
import { DEFAULT_NAMESPACE, NAMESPACES, RESOURCES } from "./resources";

/** i18next's `t` for one language, with namespaced keys ("api:errors.not_found"). */
export type Translate = (key: string, values?: Record<string, string>) => string;

/**
 * i18next's options wherever the app translates: the request's instance (remix-i18next's middleware,
 * app/i18n/i18n-middleware.server.ts) and the one below. Resources are bundled and `initAsync` is off, so an instance
 * is ready as soon as `init` returns, with nothing to fetch.
 */
export const I18NEXT_OPTIONS = {
  resources: RESOURCES,
  ns: NAMESPACES,
  defaultNS: DEFAULT_NAMESPACE,
  fallbackLng: DEFAULT_LOCALE,
  initAsync: false,
  // Plain text (JSON bodies, text mail) and React, which escapes what it renders: nothing to escape here.
  interpolation: { escapeValue: false },
} satisfies InitOptions;

/**
 * i18next for text made where no request's instance exists: the HTTP layer's API answers to what never reaches a
 * route (app/server/api-checks.ts), and tests that call the domain directly. Every language's resources are loaded, so
 * `getFixedT(locale)` translates into any of them.
 */
export const i18nextOutsideRequests = i18next.createInstance();
void i18nextOutsideRequests.init({ ...I18NEXT_OPTIONS, lng: DEFAULT_LOCALE });

/** `instance`'s `t` for `locale`, whatever the instance's own language: for text in a language the request did not name. */
export function fixedTranslator(instance: Pick<i18n, "getFixedT">, locale: Locale): Translate {
  return instance.getFixedT(locale) as unknown as Translate;
}

export function translatorFor(locale: Locale): Translate {
  return fixedTranslator(i18nextOutsideRequests, locale);
}
