import { type RouterContextProvider, redirect } from "react-router";
import { KEPT_FORM_COOKIE_MAX_AGE_S, keptFormCookie } from "~/cookies/app-cookies.server";
import { hasRecentPassword } from "~/domain/account/reauthentication.server";
import { serverTokenOf } from "~/domain/sessions/server-tokens.server";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
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
  options: StepOptions = {},
): Promise<void> {
  if (hasRecentPassword(member, servicesOf(context).clock.now())) return;
  throw await toReauthentication(context, url, member, options);
}

/**
 * The session's server token for a credential change Cognito lets only the member's own token make (the
 * authenticator's set-up, adding or deleting a passkey), when the password (and code) typed on this session in the
 * last minutes made one: a password sign-in without 2-step verification, or the password step. Otherwise the
 * password step first, as requireRecentPassword.
 */
export async function requireServerToken(
  context: Readonly<RouterContextProvider>,
  url: URL,
  member: SignedInMember,
  options: StepOptions = {},
): Promise<ServerToken> {
  const { clock, config, db } = servicesOf(context);
  const token = hasRecentPassword(member, clock.now())
    ? await serverTokenOf(db, { sessionId: member.sessionId, sub: member.sub, secrets: config.sessionSecrets })
    : null;
  if (token) return token;
  throw await toReauthentication(context, url, member, options);
}

interface StepOptions {
  keep?: Record<string, string>;
  returnTo?: string;
}

/** The redirect to the password step, with what the member typed kept. */
async function toReauthentication(
  context: Readonly<RouterContextProvider>,
  url: URL,
  member: SignedInMember,
  { keep, returnTo }: StepOptions,
): Promise<Response> {
  const { clock, config } = servicesOf(context);
  const { pathname, search } = url;
  const headers = new Headers();
  if (keep) {
    const expiresAt = clock.now().getTime() + KEPT_FORM_COOKIE_MAX_AGE_S * 1000;
    const state = { sub: member.sub, page: pathname, fields: keep, expiresAt };
    headers.append("Set-Cookie", await keptFormCookie.serialize(config, state));
  }
  return redirect(reauthenticationPath(pathname, returnTo ?? `${pathname}${search}`), { headers });
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
