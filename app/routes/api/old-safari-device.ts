import { apiRoute } from "~/api/api-handler.server";
import { describeDevice } from "~/domain/sessions/device-description.server";
import { endSessions } from "~/domain/sessions/session-ending.server";

const api = apiRoute({
  DELETE: {
    operation: "removeOutdatedSafariDevice",
    handle: async (call) => {
      const { request, member } = call;
      const ended = await endSessions(call, {
        sub: member.sub,
        outdatedBrowser: describeDevice(request.headers.get("User-Agent")),
        keepOriginJti: member.originJti ?? undefined,
      });
      return { removed: ended.length };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
