import { apiRoute, requireRecentSignIn } from "~/api/api-handler.server";
import { memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { changeMemberEmail } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminChangeUserEmail",
    handle: async (call) => {
      const sub = memberSubOf(call.params);
      requireRecentSignIn(call);
      return changeMemberEmail(call, await staffActorOf(call), sub, call.body.email, call.i18n);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
