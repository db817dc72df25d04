import type { Locale } from "~/i18n/locales";
import { pathFor } from "./route-table";

/**
 * The links the mail outbox's mails carry (SecurityMailLinks in app/domain/mail/mail-outbox.server.ts): absolute, on
 * the app's public origin, in the mail's language. The sign-in alert's page ends the sign-in it told of; the password
 * reset is for a member told of a change they did not make, who may not be able to sign in.
 */
export function securityMailLinksFor(origin: string) {
  return {
    signInAlert: (token: string, locale: Locale) => `${origin}${pathFor("sign-in-alert", locale, { token })}`,
    passwordReset: (locale: Locale) => `${origin}${pathFor("auth-forgot-password", locale)}`,
  };
}
