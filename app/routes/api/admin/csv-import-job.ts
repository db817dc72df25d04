import { apiRoute } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { asJson, importJobIdOf } from "~/api/staff-api.server";
import { getImportJobProgress } from "~/domain/csv-import/import-jobs.server";

const api = apiRoute({
  GET: {
    operation: "adminCsvImportJob",
    handle: async (call) => {
      const job = await getImportJobProgress(call.db, importJobIdOf(call.params));
      if (!job) throw new ApiError("not_found");
      return asJson(job);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
