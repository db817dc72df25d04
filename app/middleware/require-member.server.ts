import { type RouterContextProvider, data, redirect } from "react-router";
import { localeFromPathname, pathnameForLocale } from "~/i18n/locales";
import { routeNameForPathname } from "~/routing/route-table";
import { databaseUnavailableContext, servicesOf, staffContext, staffStandingContext } from "~/router-context.server";
import { issuedAtOf } from "~/domain/account/sign-in.server";
import { staffStandingNow } from "~/domain/directory/staff-group-check.server";
import { type SignedInMember, getMember } from "./member-session.server";
import { type SignedInStaff, getStaff, redirectToStaffSignIn } from "./staff-session.server";

/**
 * Sign-in in the page's language, with `to=` so that the member comes back here afterwards: the route name of a
 * plain page, or the path itself where the name would lose something (a member's detail page, a search's query).
 */
export function redirectToSignIn(url: URL): never {
  const { pathname, search } = url;
  const signIn = pathnameForLocale("/auth/sign-in/", localeFromPathname(pathname));
  const to = (search === "" && routeNameForPathname(pathname)) || `${pathname}${search}`;
  throw redirect(`${signIn}?to=${encodeURIComponent(to)}`);
}

/** The signed-in member; anyone else is sent to sign-in (the database down: the 503 page, see getMember). */
export function requireMember(context: Readonly<RouterContextProvider>, url: URL): SignedInMember {
  const member = getMember(context);
  if (!member) redirectToSignIn(url);
  return member;
}

/**
 * The staff layout's guard: redirects only, so it can run as middleware on client navigations too (a middleware
 * that throws a 403 would keep the root loader, and so the localized error page, from running; requireAdmin in
 * the loaders answers that). Without a staff session: the staff sign-in, whatever the member session says. The
 * database down: the page goes ahead and answers 503.
 */
export function redirectUnlessStaffSession(context: Readonly<RouterContextProvider>, url: URL): void {
  if (!context.get(staffContext) && !context.get(databaseUnavailableContext)) redirectToStaffSignIn(url);
}

/**
/**
 * Reads the staff session's member's standing as staff for requireAdmin (the staff layout's middleware: one query,
 * no Cognito call): the staff token's groups against the member directory's recent reading, the token's issue time
 * saying which is newer. A staff member whose token names no admin group is not asked about.
 */
export async function readStaffStanding(context: Readonly<RouterContextProvider>): Promise<void> {
  const staff = context.get(staffContext);
  const { db, config, clock } = servicesOf(context);
  if (!staff?.groups.includes(config.adminGroup)) return;
  const standing = await staffStandingNow(db, {
    sub: staff.sub,
    staffGroup: config.adminGroup,
    tokenIssuedAt: issuedAtOf(staff.accessToken),
    now: clock.now(),
  });
  (context as RouterContextProvider).set(staffStandingContext, standing);
}

/**
 * The staff member of this request's staff session (app/domain/sessions/staff-sessions.server.ts), of the
 * configured admin group, for the admin pages' loaders and actions. Without a staff session: the staff sign-in;
 * outside the group: forbidden (403), by the staff token's groups and by the member directory's, which follow
 * Cognito's within a minute (readStaffStanding). Without a recent reading of the group the pages answer 503: staff
 * rights are never assumed.
 */
export function requireAdmin(context: Readonly<RouterContextProvider>, url: URL): SignedInStaff {
  const staff = getStaff(context);
  if (!staff) redirectToStaffSignIn(url);
  if (!staff.groups.includes(servicesOf(context).config.adminGroup)) throw data(null, { status: 403 });
  const standing = context.get(staffStandingContext);
  if (standing === "not-staff") throw data(null, { status: 403 });
  if (standing !== "staff") throw data(null, { status: 503, headers: { "Retry-After": "20" } });
  return staff;
}
