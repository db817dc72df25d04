import { ApiError } from "~/api/api-response.server";
import { apiRoute, limitAttempts } from "~/api/api-handler.server";
import { EmailChangeError, requestEmailChange } from "~/domain/email-change.server";

const api = apiRoute({
  POST: {
    operation: "requestEmailUpdate",
    handle: async (call) => {
      const { member, body, db, config, locale, identity, mailer } = call;
      // Its answer says whether an address has an ID (an address check), and it mails whatever address is typed.
      await limitAttempts(call, "emailCheck");
      await limitAttempts(call, "emailChange");
      // The address now, from Cognito: a bearer token does not carry it.
      const { email: currentEmail } = await identity.getUser(member.sub);
      try {
        const { expiresAt } = await requestEmailChange(
          { db, identity, mailer, origin: config.origin },
          { sub: member.sub, currentEmail, newEmail: body.email, locale },
        );
        return { email: body.email, expiresAt: expiresAt.toISOString() };
      } catch (error) {
        if (!(error instanceof EmailChangeError)) throw error;
        throw new ApiError(error.code === "sameAddress" ? "email_unchanged" : "email_unavailable");
      }
    },
  },
});

export const loader = api.loader;
export const action = api.action;
