import { apiRoute, requireRecentSignIn } from "~/api/api-handler.server";
import { staffActorOf } from "~/api/staff-api.server";
import { exportNeedsRecentSignIn } from "~/domain/staff/export-params.server";
import { exportMembers } from "~/domain/staff/member-export.server";
import { csvDownloadResponse } from "~/api/csv-response.server";

const api = apiRoute({
  GET: {
    operation: "adminExportUsers",
    handle: async (call) => {
      if (exportNeedsRecentSignIn("users", call.query)) requireRecentSignIn(call);
      const { requestId, ...actor } = await staffActorOf(call);
      return csvDownloadResponse(await exportMembers(call, { actor, requestId, query: call.query }), call.clock.now());
    },
  },
});

export const loader = api.loader;
export const action = api.action;
