import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import { type EmailChangeDependencies, confirmEmailChange, requestEmailChange } from "~/domain/email-change.server";
import type { Locale } from "~/i18n/locales";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import { getMailer } from "~/integrations/mailer.server";
import type { SignedInMember } from "~/middleware/member-session.server";

export function emailChangeDependencies(): EmailChangeDependencies {
  return { db: getDatabase(), identity: getIdentityProvider(), mailer: getMailer(), origin: getConfig().origin };
}

/** Mails the confirmation link for the signed-in member's new address. */
export function requestMemberEmailChange(member: SignedInMember, newEmail: string, locale: Locale) {
  return requestEmailChange(emailChangeDependencies(), {
    sub: member.sub,
    currentEmail: member.email,
    newEmail,
    locale,
  });
}

/** Completes the change a link names, whoever opens it. */
export function confirmEmailChangeLink(token: string, locale: Locale) {
  return confirmEmailChange(emailChangeDependencies(), { token, locale });
}
