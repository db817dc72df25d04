import { apiRoute, limitAttempts, requireRecentSignIn } from "~/api/api-handler.server";
import { requestEmailChange } from "~/domain/account/email-change.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

const api = apiRoute({
  POST: {
    operation: "requestEmailUpdate",
    handle: async (call) => {
      const { member, body, db, config, locale, i18n, identity, mailer } = call;
      // The new address takes the account (a password reset goes there): the password step of /my/email/edit/.
      requireRecentSignIn(call);
      // Its answer says whether an address has an ID (an address check), and it mails whatever address is typed.
      await limitAttempts(call, "emailCheck");
      await limitAttempts(call, "emailChange");
      // The address now, from Cognito: a bearer token does not carry it.
      const { email: currentEmail } = await identity.getUser(member.sub);
      const { expiresAt } = await requestEmailChange(
        { db, identity, mailer, mailTexts: i18n, confirmationLink: emailUpdateLinkFor(config.origin) },
        { sub: member.sub, currentEmail, newEmail: body.email, locale },
      );
      return { email: body.email, expiresAt: expiresAt.toISOString() };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
