import { apiRoute, limitEmailChecks } from "~/api/api-handler.server";
import { isAddressTaken } from "~/domain/email-change.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";

const api = apiRoute({
  POST: {
    operation: "checkUserAvailability",
    handle: async ({ member, body, db, config }) => {
      await limitEmailChecks(db, member, config);
      const taken = await isAddressTaken(getIdentityProvider(), body.email, member.sub);
      return { email: body.email, available: !taken };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
