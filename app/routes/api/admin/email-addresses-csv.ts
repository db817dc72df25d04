import { apiRoute, requireRecentSignIn } from "~/api/api-handler.server";
import { staffActorOf } from "~/api/staff-api.server";
import { exportNeedsRecentSignIn } from "~/domain/staff/export-params.server";
import { exportEmailAddresses } from "~/domain/staff/member-export.server";
import { csvDownloadResponse } from "~/api/csv-response.server";
import { newsletterUnsubscribeLinkBaseFor } from "~/routing/newsletter-unsubscribe-link";

const api = apiRoute({
  GET: {
    operation: "adminExportEmailAddresses",
    handle: async (call) => {
      if (exportNeedsRecentSignIn("email-addresses", call.query)) requireRecentSignIn(call);
      const { requestId, ...actor } = await staffActorOf(call);
      return csvDownloadResponse(
        await exportEmailAddresses(
          call,
          { actor, requestId, query: call.query },
          {
            linkBase: newsletterUnsubscribeLinkBaseFor(call.config.origin),
            sessionSecrets: call.config.sessionSecrets,
          },
        ),
        call.clock.now(),
      );
    },
  },
});

export const loader = api.loader;
export const action = api.action;
