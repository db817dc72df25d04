import type { Locale } from "~/i18n/locales";
import { pathFor } from "./route-table";

/** The e-mail change confirmation link the mail carries: absolute, on the app's public origin, in the member's language. */
export function emailUpdateLinkFor(origin: string): (token: string, locale: Locale) => string {
  return (token, locale) => `${origin}${pathFor("email-update", locale, { token })}`;
}
