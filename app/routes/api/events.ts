import { apiRoute, limitFeedReads } from "~/api/api-handler.server";
import { ApiError } from "~/api/api-response.server";
import { readAccountEventFeed } from "~/domain/events/event-feed.server";

const api = apiRoute({
  GET: {
    operation: "listAccountEvents",
    handle: async (call) => {
      await limitFeedReads(call);
      const read = await readAccountEventFeed(call.db, call.config.siblingEvents, {
        query: call.query,
        now: call.clock.now(),
      });
      if (read.kind === "cursorExpired") throw new ApiError("cursor_expired");
      return read.page;
    },
  },
});

export const loader = api.loader;
export const action = api.action;
