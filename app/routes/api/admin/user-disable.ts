import { apiRoute, requireRecentSignIn } from "~/api/api-handler.server";
import { memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { disableMember } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminDisableUser",
    handle: async (call) => {
      const sub = memberSubOf(call.params);
      requireRecentSignIn(call);
      return { enabled: false as const, ...(await disableMember(call, await staffActorOf(call), sub)) };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
