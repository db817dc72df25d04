import type { Locale } from "~/i18n/locales";
import { pathFor } from "./route-table";

/**
 * The newsletter unsubscribe page's absolute URL without its token, in a language: the e-mail-address export adds
 * each member's token and the closing slash (app/domain/newsletter/newsletter.server.ts).
 */
export function newsletterUnsubscribeLinkBaseFor(origin: string): (locale: Locale) => string {
  return (locale) => `${origin}${pathFor("newsletter-unsubscribe", locale)}`;
}
