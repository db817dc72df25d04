import { apiRoute } from "~/api/api-handler.server";
import { countMembers } from "~/domain/staff/member-search.server";

const api = apiRoute({
  GET: {
    operation: "adminCountUsers",
    handle: async ({ db, query }) => ({ count: await countMembers(db, query) }),
  },
});

export const loader = api.loader;
export const action = api.action;
