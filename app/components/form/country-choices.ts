import { COUNTRIES } from "~/domain/forms/form-choices";
import type { Locale } from "~/i18n/locales";

/**
 * The profile form's countries with their names in the page's language (Intl.DisplayNames; "other" gets the given
 * label). Loaders send them, so the server's and the browser's text cannot differ at hydration.
 */
export function countryChoices(locale: Locale, otherLabel: string): { value: string; label: string }[] {
  const regionNames = new Intl.DisplayNames([locale], { type: "region" });
  return COUNTRIES.map((code) => ({
    value: code,
    label: code === "other" ? otherLabel : (regionNames.of(code) ?? code),
  }));
}
