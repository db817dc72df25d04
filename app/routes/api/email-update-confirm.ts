import { ApiError } from "~/api/api-response.server";
import { apiRoute } from "~/api/api-handler.server";
import { confirmEmailChange } from "~/domain/account/email-change.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

const api = apiRoute({
  POST: {
    operation: "confirmEmailUpdate",
    handle: async ({ member, params, db, config, locale, i18n, identity, mailer, clientIp }) => {
      const outcome = await confirmEmailChange(
        { db, identity, mailer, mailTexts: i18n, confirmationLink: emailUpdateLinkFor(config.origin) },
        // Another member's token reads as expired: the caller learns nothing about it.
        { token: params.token ?? "", locale, sub: member.sub, clientIp },
      );
      if (outcome.kind === "expired") throw new ApiError("email_update_expired");
      if (outcome.kind === "emailUnavailable") throw new ApiError("email_unavailable");
      return { email: outcome.newEmail };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
