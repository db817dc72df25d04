import { apiRoute } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { asJson, memberSubOf } from "~/api/staff-api.server";
import { findMemberDetail } from "~/domain/staff/member-detail.server";
import { listAuditEvents } from "~/domain/staff/staff-audit-log.server";

const api = apiRoute({
  GET: {
    operation: "adminGetUser",
    handle: async ({ db, params }) => {
      const sub = memberSubOf(params);
      const [detail, audit] = await Promise.all([findMemberDetail(db, sub), listAuditEvents(db, { targetSub: sub })]);
      if (!detail) throw new ApiError("not_found");
      return asJson({ ...detail, auditEvents: audit.events });
    },
  },
});

export const loader = api.loader;
export const action = api.action;
