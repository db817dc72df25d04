import { apiRoute } from "~/api/api-handler.server";
import { memberSubOf, staffActorOf } from "~/api/staff-api.server";
import { turnOffMemberTwoStep } from "~/domain/staff/staff-actions.server";

const api = apiRoute({
  POST: {
    operation: "adminTurnOffTwoStep",
    handle: async (call) => turnOffMemberTwoStep(call, await staffActorOf(call), memberSubOf(call.params)),
  },
});

export const loader = api.loader;
export const action = api.action;
