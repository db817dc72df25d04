import { apiNotFound } from "~/api/api-handler.server";

/** Any other /api/ path: the JSON envelope, never the HTML 404 page. */
export const loader = apiNotFound;
export const action = apiNotFound;
