import { apiRoute } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { asJson, importJobIdOf, staffActorOf } from "~/api/staff-api.server";
import { cancelImportJob } from "~/domain/csv-import/import-jobs.server";

const api = apiRoute({
  POST: {
    operation: "adminCsvImportCancel",
    handle: async (call) => {
      const jobId = importJobIdOf(call.params);
      const actor = await staffActorOf(call);
      const job = await cancelImportJob(call, { jobId, actor, requestId: call.requestId });
      if (!job) throw new ApiError("not_found");
      return asJson(job);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
