import { apiRoute } from "~/api/api-handler.server";
import { asJson } from "~/api/staff-api.server";
import { searchMembers } from "~/domain/staff/member-search.server";

const api = apiRoute({
  GET: {
    operation: "adminListUsers",
    handle: async ({ db, query }) => asJson(await searchMembers(db, query)),
  },
});

export const loader = api.loader;
export const action = api.action;
