import { type RouterContextProvider, data, redirect } from "react-router";
import { sessionCookie } from "~/cookies/app-cookies.server";
import { localeFromPathname, pathnameForLocale } from "~/i18n/locales";
import { routeNameForPathname } from "~/routing/route-table";
import { servicesOf, staffStandingContext } from "~/router-context.server";
import { issuedAtOf } from "~/domain/account/sign-in.server";
import { staffStandingNow } from "~/domain/directory/staff-group-check.server";
import { type SignedInMember, getMember, peekMember } from "./member-session.server";

/**
 * Sign-in in the page's language, with `to=` so that the member comes back here afterwards: the route name of a
 * plain page, or the path itself where the name would lose something (a member's detail page, a search's query).
 */
export function redirectToSignIn(request: Request): never {
  const { pathname, search } = new URL(request.url);
  const signIn = pathnameForLocale("/auth/sign-in/", localeFromPathname(pathname));
  const to = (search === "" && routeNameForPathname(pathname)) || `${pathname}${search}`;
  throw redirect(`${signIn}?to=${encodeURIComponent(to)}`);
}

/** The signed-in member; anyone else is sent to sign-in (the database down: the 503 page, see getMember). */
export function requireMember(context: Readonly<RouterContextProvider>, request: Request): SignedInMember {
  const member = getMember(context);
  if (!member) redirectToSignIn(request);
  return member;
}

/**
 * Where someone who is not signed in is sent from an admin page: a visitor to sign-in with `to=` (they come back
 * after signing in); a browser whose session expired or ended to `/` (spec section 4: an admin call answered 401
 * sends the user to /) rather than round a sign-in loop for a session that may have been ended on purpose.
 */
function redirectFromAdmin(context: Readonly<RouterContextProvider>, request: Request): never {
  // A session cookie that gave no member: the session middleware found it expired or ended (and cleared it).
  if (sessionCookie.isPresent(servicesOf(context).config, request)) throw redirect("/");
  redirectToSignIn(request);
}

/**
 * The admin layout's guard: redirects only, so it can run as middleware on client navigations too (a middleware
 * that throws a 403 would keep the root loader, and so the localized error page, from running; requireAdmin in
 * the loaders answers that). The database down: the page goes ahead and answers 503.
 */
export function redirectUnlessSignedIn(context: Readonly<RouterContextProvider>, request: Request): void {
  const { member, databaseUnavailable } = peekMember(context);
  if (!member && !databaseUnavailable) redirectFromAdmin(context, request);
}

/**
 * Reads the signed-in member's standing as staff for requireAdmin (the staff layout's middleware: one query, no
 * Cognito call). A member whose token names no admin group is not asked about.
 */
export async function readStaffStanding(context: Readonly<RouterContextProvider>): Promise<void> {
  const { member } = peekMember(context);
  const { db, config, clock } = servicesOf(context);
  if (!member?.groups.includes(config.adminGroup)) return;
  const standing = await staffStandingNow(db, {
    sub: member.sub,
    staffGroup: config.adminGroup,
    tokenIssuedAt: issuedAtOf(member.accessToken),
    now: clock.now(),
  });
  (context as RouterContextProvider).set(staffStandingContext, standing);
}

/**
 * A signed-in member of the configured admin group, for the admin pages' loaders and actions. Anyone not signed
 * in is redirected (redirectFromAdmin); a member outside the group is forbidden (403), by their token's groups and
 * by the member directory's, which follow Cognito's within a minute (readStaffStanding). Without a recent reading of
 * the group the pages answer 503: staff rights are never assumed.
 */
export function requireAdmin(context: Readonly<RouterContextProvider>, request: Request): SignedInMember {
  const member = getMember(context);
  if (!member) redirectFromAdmin(context, request);
  if (!member.groups.includes(servicesOf(context).config.adminGroup)) throw data(null, { status: 403 });
  const standing = context.get(staffStandingContext);
  if (standing === "not-staff") throw data(null, { status: 403 });
  if (standing !== "staff") throw data(null, { status: 503, headers: { "Retry-After": "20" } });
  return member;
}
