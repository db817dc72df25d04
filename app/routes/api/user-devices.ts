import { apiRoute, deviceList } from "~/api/api-handler.server";

const api = apiRoute({
  GET: { operation: "listUserDevices", handle: ({ member, db, config }) => deviceList(db, member, config) },
});

export const loader = api.loader;
export const action = api.action;
