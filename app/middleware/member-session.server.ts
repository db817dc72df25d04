import { type MiddlewareFunction, type RouterContextProvider, data } from "react-router";
import { isDatabaseUnavailable } from "~db/client.server";
import { sessionCookie } from "~/cookies/app-cookies.server";
import {
  type PageSessionResolution,
  type SignedInMember,
  resolvePageSession,
} from "~/domain/sessions/page-sessions.server";
import { logger } from "~/integrations/logger.server";
import { databaseUnavailableContext, memberContext, servicesOf } from "~/router-context.server";

export type { SignedInMember };

/** The answer for a page that needs the database while it is down: the layouts' 503 page, not a 500. */
export function serviceUnavailable(): never {
  throw data(null, { status: 503, headers: { "Retry-After": "30" } });
}

/**
 * The signed-in member of this request, or null. When the database was down at the session check the member is
 * unknown, and a loader or action asking is answered with the 503 page rather than treated as signed out.
 */
export function getMember(context: Readonly<RouterContextProvider>): SignedInMember | null {
  if (context.get(databaseUnavailableContext)) serviceUnavailable();
  return context.get(memberContext);
}

/**
 * The member for the frame (header, user menu), which must render even on the 503 page: null when unknown. And
 * whether the database was down at the session check, for the layouts' fault handling.
 */
export function peekMember(context: Readonly<RouterContextProvider>): {
  member: SignedInMember | null;
  databaseUnavailable: boolean;
} {
  return { member: context.get(memberContext), databaseUnavailable: context.get(databaseUnavailableContext) };
}

/** The database could not answer: the member is unknown; pages answer 503 and the session is kept. */
type Resolution = PageSessionResolution | { kind: "databaseUnavailable" };

/** Resolves the session cookie's member (app/domain/sessions/page-sessions.server.ts) and writes the cookie back. */
export const memberSessionMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const services = servicesOf(context);
  const cookie = await sessionCookie.read(services.config, request);
  if (!cookie) {
    context.set(memberContext, null);
    return next();
  }
  const resolution = await resolvePageSession(services, { sessionId: cookie.sid, accessToken: cookie.at }).catch(
    (error: unknown): Resolution => {
      if (!isDatabaseUnavailable(error)) throw error;
      // Thrown from here, the error would reach only the root's bare last-resort page; the layouts answer 503.
      logger.warn({ err: error }, "database unavailable at the session check");
      return { kind: "databaseUnavailable" };
    },
  );
  context.set(databaseUnavailableContext, resolution.kind === "databaseUnavailable");
  context.set(memberContext, resolution.kind === "member" ? resolution.member : null);
  const response = await next();
  if (resolution.kind === "member") {
    // A signed-in page is the member's own: never stored by a shared cache or the browser's disk cache.
    response.headers.set("Cache-Control", "no-store");
    if (resolution.refreshedAccessToken) {
      const refreshed = { sid: cookie.sid, at: resolution.refreshedAccessToken };
      response.headers.append("Set-Cookie", await sessionCookie.serialize(services.config, refreshed));
    }
  } else if (resolution.kind === "signedOut") {
    response.headers.append("Set-Cookie", await sessionCookie.clear(services.config));
  }
  return response;
};
