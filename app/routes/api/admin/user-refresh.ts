import { apiRoute } from "~/api/api-handler.server";
import { asJson, memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { refreshMember } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminRefreshUser",
    handle: async (call) => {
      const sub = memberSubOf(call.params);
      return asJson(await refreshMember(call, await staffActorOf(call), sub));
    },
  },
});

export const loader = api.loader;
export const action = api.action;
