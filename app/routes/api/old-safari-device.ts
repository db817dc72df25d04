import { apiRoute } from "~/api/api-handler.server";
import { describeDevice } from "~/domain/device-description.server";
import { endOutdatedBrowserEntriesFor, revokeRefreshTokens } from "~/domain/member-session.server";

const api = apiRoute({
  DELETE: {
    operation: "removeOutdatedSafariDevice",
    handle: async ({ request, member, db, config, identity }) => {
      const ended = await endOutdatedBrowserEntriesFor(db, {
        sub: member.sub,
        device: describeDevice(request.headers.get("User-Agent")),
        originJti: member.originJti ?? undefined,
      });
      await revokeRefreshTokens({ db, identity, secrets: config.sessionSecrets }, ended);
      return { removed: ended.length };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
