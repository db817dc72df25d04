import { apiRoute } from "~/api/api-handler.server";
import { memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { endMemberSessions } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminSignOutUser",
    handle: async (call) => {
      const sub = memberSubOf(call.params);
      return endMemberSessions(call, await staffActorOf(call), sub);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
