import { apiRoute } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { importJobIdOf } from "~/api/staff-api.server";
import { failedRowsCsv } from "~/domain/csv-import/failed-rows.server";
import { getImportJobProgress } from "~/domain/csv-import/import-jobs.server";
import { fixedTranslator } from "~/i18n/translator.server";
import { csvDownloadResponse } from "~/api/csv-response.server";

const api = apiRoute({
  GET: {
    operation: "adminCsvImportFailedRows",
    handle: async (call) => {
      const jobId = importJobIdOf(call.params);
      if (!(await getImportJobProgress(call.db, jobId))) throw new ApiError("not_found");
      const { encoding } = call.query;
      const translate = fixedTranslator(call.i18n, call.query.locale ?? call.locale);
      const body = failedRowsCsv(call.db, jobId, {
        encoding,
        reasonText: (code) => translate(`csvImport:rowFailures.${code}`),
      });
      return csvDownloadResponse({ body, encoding, baseName: "import-failed-rows" }, call.clock.now());
    },
  },
});

export const loader = api.loader;
export const action = api.action;
