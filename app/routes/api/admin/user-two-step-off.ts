import { apiRoute, requireRecentSignIn } from "~/api/api-handler.server";
import { memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { turnOffMemberTwoStep } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminTurnOffTwoStep",
    handle: async (call) => {
      const sub = memberSubOf(call.params);
      requireRecentSignIn(call);
      return turnOffMemberTwoStep(call, await staffActorOf(call), sub);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
