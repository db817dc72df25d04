import { apiRoute } from "~/api/api-handler.server";
import { asJson } from "~/api/staff-api.server";
import { listAuditEvents } from "~/domain/staff/staff-audit-log.server";

const api = apiRoute({
  GET: {
    operation: "adminListAuditEvents",
    handle: async ({ db, query }) => asJson(await listAuditEvents(db, query)),
  },
});

export const loader = api.loader;
export const action = api.action;
