import { apiRoute, limitFeedReads } from "~/api/api-handler.server";
import { readAccountEventFeed } from "~/domain/events/event-feed.server";

const api = apiRoute({
  GET: {
    operation: "listAccountEvents",
    handle: async (call) => {
      await limitFeedReads(call);
      return readAccountEventFeed(call.db, call.config.siblingEvents, { query: call.query, now: call.clock.now() });
    },
  },
});

export const loader = api.loader;
export const action = api.action;
