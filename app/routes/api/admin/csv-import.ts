import { apiRoute, requireRecentSignIn, withStatus } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { asJson, staffActorOf } from "~/api/staff-api.server";
import { problemMessageValues } from "~/domain/csv-import/csv-import-file.server";
import { getImportJobProgress, startImportJob } from "~/domain/csv-import/import-jobs.server";
import { validateImport } from "~/domain/csv-import/import-dry-run.server";
import { fixedTranslator } from "~/i18n/translator.server";

/** The file name a job shows when the caller gives none. */
const DEFAULT_FILE_NAME = "import.csv";

const api = apiRoute({
  POST: {
    operation: "adminCsvImportUserCreate",
    handle: async (call) => {
      const dryRun = call.query.dryRun === "true";
      if (!dryRun) requireRecentSignIn(call);
      const actor = await staffActorOf(call);
      // The HTTP layer read the body within the file cap (the contract's rawBody) before this route ran.
      const bytes = new Uint8Array(await call.request.arrayBuffer());
      const validation = await validateImport(call, {
        bytes,
        fileName: call.query.fileName || DEFAULT_FILE_NAME,
        actor,
        requestId: call.requestId,
        store: !dryRun,
      });
      const translate = fixedTranslator(call.i18n, call.locale);
      const report = {
        ...validation.report,
        problems: validation.report.problems.map((problem) => ({
          ...problem,
          message: translate(`csvImport:problems.${problem.code}`, problemMessageValues(problem)),
        })),
      };
      if (validation.kind === "refused") throw new ApiError("validation_failed", { problems: report });
      if (!validation.jobId) return withStatus(200, { report, job: null });
      await startImportJob(call, {
        jobId: validation.jobId,
        actor,
        requestId: call.requestId,
        creationsPerSecond: call.config.csvImport.creationsPerSecond,
      });
      const job = await getImportJobProgress(call.db, validation.jobId);
      return withStatus(
        202,
        { report, job: asJson(job) },
        { Location: `/api/admin/csv-import/jobs/${validation.jobId}` },
      );
    },
  },
});

export const loader = api.loader;
export const action = api.action;
