import { apiRoute, limitAttempts } from "~/api/api-handler.server";
import { isAddressTaken } from "~/domain/account/email-change.server";

const api = apiRoute({
  POST: {
    operation: "checkUserAvailability",
    handle: async (call) => {
      const { member, body, identity } = call;
      await limitAttempts(call, "emailCheck");
      const taken = await isAddressTaken(identity, body.email, member.sub);
      return { email: body.email, available: !taken };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
