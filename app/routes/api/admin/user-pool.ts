import { apiRoute } from "~/api/api-handler.server";
import { asJson } from "~/api/staff-api.server";
import { describeUserPool } from "~/domain/directory/user-pool-summary.server";

const api = apiRoute({
  GET: {
    operation: "adminGetUserPool",
    handle: async (call) => asJson(await describeUserPool(call)),
  },
});

export const loader = api.loader;
export const action = api.action;
