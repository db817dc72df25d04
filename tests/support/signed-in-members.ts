import { verifyMemberFactors } from "~/domain/account/reauthentication.server";
import { signIn } from "~/domain/account/sign-in.server";
import { startAuthenticatorSetup, turnOnTwoStep } from "~/domain/security/two-step-verification.server";
import type { ServerToken } from "~/integrations/cognito/member-flows.server";
import { resolvePageSession } from "~/domain/sessions/page-sessions.server";
import type { Locale } from "~/i18n/locales";
import type { SignedInMember } from "~/middleware/member-session.server";
import type { AppServices } from "~/services.server";
import { totpCode } from "./totp-codes";

/** The password the members made here sign in with. */
export const MEMBER_PASSWORD = "correct-horse-battery";

/** How the browser signs in: its user agent and client IP, the page's language. */
export interface BrowserOptions {
  userAgent?: string | null;
  clientIp?: string;
  locale?: Locale;
  password?: string;
}

/** The member behind a session, as the next request's session check reads them (the password time included). */
export async function memberAsSeenNow(
  services: AppServices,
  session: { sessionId: string; accessToken: string },
): Promise<SignedInMember> {
  const resolution = await resolvePageSession(services, session);
  if (resolution.kind !== "member") throw new Error(`session resolved as ${resolution.kind}`);
  return resolution.member;
}

/** An existing member signed in with their password from a new browser (the sign-in form's verb). */
export async function signInMember(
  services: AppServices,
  email: string,
  { userAgent = null, clientIp = "127.0.0.1", locale = "ja", password = MEMBER_PASSWORD }: BrowserOptions = {},
): Promise<SignedInMember> {
  const result = await signIn(services, {
    email,
    password,
    deviceKey: crypto.randomUUID(),
    userAgent,
    clientIp,
    locale,
  });
  if (result.kind !== "active") throw new Error(`sign-in ended as ${result.kind}`);
  return memberAsSeenNow(services, result);
}

/** A new confirmed member (`label` and a random part in the address), signed in with their password. */
export async function signedInMember(
  services: AppServices,
  label: string,
  options: BrowserOptions = {},
): Promise<SignedInMember> {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await services.identity.createConfirmedUser({
    email,
    password: options.password ?? MEMBER_PASSWORD,
    attributes: { locale: options.locale ?? "ja" },
  });
  return signInMember(services, email, options);
}

/**
 * The member's server token (the server-only client's, which Cognito's self-service calls take), from their password
 * as the re-authentication step makes it, for tests that call the credential verbs directly.
 */
export function serverTokenFor(
  services: AppServices,
  member: { sub: string; email: string },
  password = MEMBER_PASSWORD,
): Promise<ServerToken> {
  return verifyMemberFactors(services, { ...member, password });
}

/**
 * A new member who signed in once and turned on 2-step verification as the security page does (the set-up with the
 * server token, the first code): the code that turned it on used up the current time step.
 */
export async function memberWithTwoStepIn(
  services: AppServices,
  label: string,
  password = MEMBER_PASSWORD,
): Promise<{ email: string; sub: string; secret: string; recoveryCodes: string[] }> {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await services.identity.createConfirmedUser({ email, password, attributes: { locale: "ja" } });
  const browser = { deviceKey: crypto.randomUUID(), userAgent: null, clientIp: "127.0.0.1", locale: "ja" as const };
  const session = await signIn(services, { ...browser, email, password });
  if (session.kind !== "active") throw new Error(`sign-in ended as ${session.kind}`);
  const sub = (await services.identity.getUser(email)).sub;
  const token = await serverTokenFor(services, { sub, email }, password);
  const secret = await startAuthenticatorSetup(services, { token });
  const recoveryCodes = await turnOnTwoStep(services, {
    ...browser,
    sub,
    email,
    token,
    sessionId: session.sessionId,
    code: totpCode(secret),
  });
  return { email, sub, secret, recoveryCodes };
}
