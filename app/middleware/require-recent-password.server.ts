import { type RouterContextProvider, redirect } from "react-router";
import { KEPT_FORM_COOKIE_MAX_AGE_S, keptFormCookie } from "~/cookies/app-cookies.server";
import { hasRecentPassword } from "~/domain/account/reauthentication.server";
import { localeFromPathname } from "~/i18n/locales";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { SignedInMember } from "./member-session.server";
import type { PageRequest } from "~/routing/page-request";

/** The password step in the page's language, with the way back. */
function reauthenticationPath(pathname: string, returnTo: string): string {
  return `${pathFor("my-reauthentication", localeFromPathname(pathname))}?to=${encodeURIComponent(returnTo)}`;
}

/**
 * Lets a sensitive page or action go ahead only when the member typed their password on this session recently;
 * otherwise sends them to the password step, which brings them back to this page (or to `returnTo`, a page for a
 * download). `keep`: what the member typed into this page's form (never a password), kept in a short-lived signed
 * cookie so the page shows it again.
 */
export async function requireRecentPassword(
  context: Readonly<RouterContextProvider>,
  url: URL,
  member: SignedInMember,
  { keep, returnTo }: { keep?: Record<string, string>; returnTo?: string } = {},
): Promise<void> {
  const { clock, config } = servicesOf(context);
  if (hasRecentPassword(member, clock.now())) return;
  const { pathname, search } = url;
  const headers = new Headers();
  if (keep) {
    const expiresAt = clock.now().getTime() + KEPT_FORM_COOKIE_MAX_AGE_S * 1000;
    const state = { sub: member.sub, page: pathname, fields: keep, expiresAt };
    headers.append("Set-Cookie", await keptFormCookie.serialize(config, state));
  }
  throw redirect(reauthenticationPath(pathname, returnTo ?? `${pathname}${search}`), { headers });
}

/** What this member (or staff member) typed into this page's form before the password step, or null. */
export async function keptFormFields(
  context: Readonly<RouterContextProvider>,
  { request, url }: PageRequest,
  member: Pick<SignedInMember, "sub">,
): Promise<Record<string, string> | null> {
  const { clock, config } = servicesOf(context);
  const state = await keptFormCookie.read(config, request);
  if (!state || state.sub !== member.sub || state.page !== url.pathname) return null;
  return state.expiresAt > clock.now().getTime() ? state.fields : null;
}
