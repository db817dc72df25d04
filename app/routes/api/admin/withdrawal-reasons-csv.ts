import { apiRoute } from "~/api/api-handler.server";
import { staffActorOf } from "~/api/staff-api.server";
import { exportWithdrawalReasons } from "~/domain/staff/member-export.server";
import { fixedTranslator } from "~/i18n/translator.server";
import { csvDownloadResponse } from "~/api/csv-response.server";

const api = apiRoute({
  GET: {
    operation: "adminExportWithdrawalReasons",
    handle: async (call) => {
      const { requestId, ...actor } = await staffActorOf(call);
      const translate = fixedTranslator(call.i18n, call.locale);
      const download = await exportWithdrawalReasons(call, { actor, requestId, query: call.query }, (reason) =>
        translate(`withdrawal:reasons.${reason}`),
      );
      return csvDownloadResponse(download, call.clock.now());
    },
  },
});

export const loader = api.loader;
export const action = api.action;
