import { type RouterContextProvider, data, redirect } from "react-router";
import { localeFromPathname, pathnameForLocale } from "~/i18n/locales";
import { routeNameForPathname } from "~/routing/route-table";
import { servicesOf } from "~/services.server";
import { type SignedInMember, getMember } from "./member-session.server";

/** Sign-in in the page's language, with `to=<route name>` so that the member comes back here afterwards. */
export function redirectToSignIn(request: Request): never {
  const { pathname } = new URL(request.url);
  const signIn = pathnameForLocale("/auth/sign-in/", localeFromPathname(pathname));
  const name = routeNameForPathname(pathname);
  throw redirect(name ? `${signIn}?to=${encodeURIComponent(name)}` : signIn);
}

/** The signed-in member; anyone else is sent to sign-in (the database down: the 503 page, see getMember). */
export function requireMember(context: Readonly<RouterContextProvider>, request: Request): SignedInMember {
  const member = getMember(context);
  if (!member) redirectToSignIn(request);
  return member;
}

/**
 * A signed-in member of the configured admin group. Signed out goes to `/`; a member outside the group is forbidden.
 */
export function requireAdmin(context: Readonly<RouterContextProvider>): SignedInMember {
  const member = getMember(context);
  if (!member) throw redirect("/");
  if (!member.groups.includes(servicesOf(context).config.adminGroup)) throw data(null, { status: 403 });
  return member;
}
