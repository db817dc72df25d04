import { type MiddlewareFunction, type RouterContextProvider, redirect } from "react-router";
import { isDatabaseUnavailable } from "~db/client.server";
import { KEPT_FORM_COOKIE_MAX_AGE_S, keptFormCookie, staffSessionCookie } from "~/cookies/app-cookies.server";
import { hasRecentPassword } from "~/domain/account/reauthentication.server";
import {
  type SignedInStaff,
  type StaffSessionResolution,
  resolveStaffSession,
} from "~/domain/sessions/staff-sessions.server";
import { localeFromPathname } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { pathFor, routeNameForPathname } from "~/routing/route-table";
import { databaseUnavailableContext, servicesOf, staffContext } from "~/router-context.server";
import { serviceUnavailable } from "./member-session.server";

export type { SignedInStaff };

/** The staff session's member of this request, or null (the database down: the 503 page, as getMember answers). */
export function getStaff(context: Readonly<RouterContextProvider>): SignedInStaff | null {
  if (context.get(databaseUnavailableContext)) serviceUnavailable();
  return context.get(staffContext);
}

/** The staff sign-in in the page's language, with `to=` back to this page (its route name, or its path). */
export function staffSignInPath(url: URL, mode?: "confirm", returnTo?: string): string {
  const { pathname, search } = url;
  const to = returnTo ?? ((search === "" && routeNameForPathname(pathname)) || `${pathname}${search}`);
  const query = new URLSearchParams({ ...(mode ? { mode } : {}), to });
  return `${pathFor("admin-sign-in", localeFromPathname(pathname))}?${query.toString()}`;
}

/** Sends whoever has no staff session to the staff sign-in; a member session alone never opens a staff page. */
export function redirectToStaffSignIn(url: URL): never {
  throw redirect(staffSignInPath(url));
}

/**
 * Lets a high-impact staff action (a member's e-mail, disabling, turning off their 2-step verification, a full
 * export, starting an import) go ahead only when the password and code were entered on this staff session within
 * the last 10 minutes; otherwise sends the staff member to the staff sign-in in "confirm" mode, which brings them
 * back to this page (or `returnTo`). `keep`: what they typed into the form (never a password), in the same
 * short-lived signed cookie the members' password step uses (app/middleware/require-recent-password.server.ts).
 */
export async function requireRecentStaffConfirmation(
  context: Readonly<RouterContextProvider>,
  url: URL,
  staff: SignedInStaff,
  { keep, returnTo }: { keep?: Record<string, string>; returnTo?: string } = {},
): Promise<void> {
  const { clock, config } = servicesOf(context);
  if (hasRecentPassword(staff, clock.now())) return;
  const headers = new Headers();
  if (keep) {
    const expiresAt = clock.now().getTime() + KEPT_FORM_COOKIE_MAX_AGE_S * 1000;
    const state = { sub: staff.sub, page: url.pathname, fields: keep, expiresAt };
    headers.append("Set-Cookie", await keptFormCookie.serialize(config, state));
  }
  throw redirect(staffSignInPath(url, "confirm", returnTo), { headers });
}

type Resolution = StaffSessionResolution | { kind: "databaseUnavailable" };

/**
 * Resolves the staff session cookie (app/domain/sessions/staff-sessions.server.ts) for the staff pages, writes the
 * refreshed access token back and clears the cookie of an ended session.
 */
export const staffSessionMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const services = servicesOf(context);
  const cookie = await staffSessionCookie.read(services.config, request);
  if (!cookie) {
    context.set(staffContext, null);
    return next();
  }
  const resolution = await resolveStaffSession(services, { sessionId: cookie.sid, accessToken: cookie.at }).catch(
    (error: unknown): Resolution => {
      if (!isDatabaseUnavailable(error)) throw error;
      logger.warn({ err: error }, "database unavailable at the staff session check");
      return { kind: "databaseUnavailable" };
    },
  );
  if (resolution.kind === "databaseUnavailable") context.set(databaseUnavailableContext, true);
  context.set(staffContext, resolution.kind === "staff" ? resolution.staff : null);
  const response = await next();
  if (resolution.kind === "staff") {
    response.headers.set("Cache-Control", "no-store");
    if (resolution.refreshedAccessToken) {
      const refreshed = { sid: cookie.sid, at: resolution.refreshedAccessToken };
      response.headers.append("Set-Cookie", await staffSessionCookie.serialize(services.config, refreshed));
    }
  } else if (resolution.kind === "ended") {
    response.headers.append("Set-Cookie", await staffSessionCookie.clear(services.config));
  }
  return response;
};
