import type { RouterContextProvider } from "react-router";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import type { Namespace, Translations } from "./use-translation";

/** The request language's resources for the given namespaces, for a loader to send to its components. */
export function loadTranslations(context: Readonly<RouterContextProvider>, namespaces: Namespace[]): Translations {
  const locale = getLocale(context);
  const i18n = getInstance(context);
  return Object.fromEntries(namespaces.map((namespace) => [namespace, i18n.getResourceBundle(locale, namespace)]));
}
