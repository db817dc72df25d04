import type { RouterContextProvider } from "react-router";
import { isDatabaseUnavailable } from "~db/client.server";
import { authenticateBearer } from "~/api/bearer-auth.server";
import { ApiError } from "~/api/api-response.server";
import { staffSessionCookie } from "~/cookies/app-cookies.server";
import { resolveStaffSession } from "~/domain/sessions/staff-sessions.server";
import { type LargeBodyRefusal, servicesOf } from "~/router-context.server";

/**
 * Whether this request may send a body over the ordinary limit: only staff upload files (the CSV
 * import), so the HTTP layer asks this, from the request's head alone, before it reads past 64 kB of a page post or
 * 32 kB of an API body. Pages: the staff session's member (app/domain/sessions/staff-sessions.server.ts), resolved
 * as the staff pages' middleware resolves it, in the admin group; a member session alone is not enough. The API:
 * the staff client's bearer token, checked as every admin endpoint checks it, of the admin group. The route checks
 * again with the body in hand; this only keeps anyone else from making the server read, buffer and parse a large
 * body. Null: go ahead.
 */
export async function largeBodyRefusal(
  context: Readonly<RouterContextProvider>,
  request: Request,
  lane: "page" | "api",
): Promise<LargeBodyRefusal | null> {
  const services = servicesOf(context);
  const { config } = services;
  try {
    let groups: string[];
    if (lane === "api") {
      // Only the admin API takes large bodies: the staff client's tokens, as its endpoints check them.
      const bearer = await authenticateBearer(request, { db: services.db, cognito: config.cognito, client: "staff" });
      groups = bearer.groups;
    } else {
      const cookie = await staffSessionCookie.read(config, request);
      const resolution = cookie
        ? await resolveStaffSession(services, { sessionId: cookie.sid, accessToken: cookie.at })
        : null;
      if (resolution?.kind !== "staff") return { code: "unauthorized" };
      groups = resolution.staff.groups;
    }
    return groups.includes(config.adminGroup) ? null : { code: "forbidden" };
  } catch (error) {
    if (
      error instanceof ApiError &&
      (error.code === "unauthorized" || error.code === "staff_token_required" || error.code === "service_unavailable")
    ) {
      return { code: error.code, headers: error.options.headers };
    }
    if (isDatabaseUnavailable(error)) return { code: "service_unavailable", headers: { "Retry-After": "30" } };
    throw error;
  }
}
