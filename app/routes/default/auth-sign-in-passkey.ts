import { redirect } from "react-router";
import { passkeyChallengeCookie, readOrCreateDeviceKey } from "~/cookies/app-cookies.server";
import { beginPasskeySignIn, completePasskeySignIn } from "~/domain/account/passkey-sign-in.server";
import { PasskeySignInAnswerSchema, PasskeySignInStartSchema } from "~/domain/forms/passkey-schemas";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-sign-in-passkey";
import { redirectAfterSignIn, signedInCookies } from "./sign-in-flow.server";

/** How long the challenge cookie may live; Cognito's own Session (AuthSessionValidity) decides first. */
const PASSKEY_CHALLENGE_MAX_AGE_MS = 15 * 60 * 1000;

/** Someone who opens the address itself gets the sign-in page, `to` kept. */
export function loader({ request, context }: Route.LoaderArgs) {
  return redirect(`${pathFor("auth-sign-in", getLocale(context))}${new URL(request.url).search}`);
}

/**
 * "Sign in with a passkey", two posts and two Cognito calls. `passkey-options` (the button's script, with the
 * address typed): Cognito's WEB_AUTHN challenge, its request options answered as JSON for the browser and its Session
 * kept in a signed cookie; a refusal is a message for the script to show. `passkey-sign-in` (the script's form, the
 * browser's assertion in a hidden input): the challenge answered, then the session starts and the member lands
 * exactly as after a password sign-in (device-limit screen included), or goes back to sign-in with the refusal.
 * Each post counts as a sign-in attempt for the address.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const { config } = services;
  const locale = getLocale(context);
  const formData = await request.formData();
  if (formData.get("intent") === "passkey-options") {
    const t = getInstance(context).getFixedT(locale) as unknown as (key: string) => string;
    const refuse = (messageKey: string, status: number) => Response.json({ error: t(messageKey) }, { status });
    const parsed = PasskeySignInStartSchema.safeParse({ email: formData.get("email") });
    if (!parsed.success) return refuse("passkeys:errors.emailFirst", 400);
    const refusal = await checkAttemptLimit(context, "signIn", parsed.data.email);
    if (refusal) return refuse(`toasts:${refusal.messageKey}`, 429);
    try {
      const { requestOptionsJson, ...challenge } = await beginPasskeySignIn(services, parsed.data);
      const expiresAt = services.clock.now().getTime() + PASSKEY_CHALLENGE_MAX_AGE_MS;
      const cookie = await passkeyChallengeCookie.serialize(config, { ...challenge, expiresAt });
      // Cognito's options, passed through as the JSON text it sent.
      return new Response(`{"options":${requestOptionsJson}}`, {
        headers: { "Content-Type": "application/json; charset=utf-8", "Set-Cookie": cookie },
      });
    } catch (error) {
      const refused = domainErrorOf(error);
      return refuse(messageKeyOf(refused), httpStatusOf(refused));
    }
  }

  const signInPage = `${pathFor("auth-sign-in", locale)}${new URL(request.url).search}`;
  const toasts = getToastUtils(context);
  const clearChallenge = { headers: { "Set-Cookie": await passkeyChallengeCookie.clear(config) } };
  const challenge = await passkeyChallengeCookie.read(config, request);
  const parsed = PasskeySignInAnswerSchema.safeParse({ credential: formData.get("credential") });
  if (!challenge || challenge.expiresAt <= services.clock.now().getTime() || !parsed.success) {
    return toasts.redirectWithError(signInPage, "passkeys:errors.refused", clearChallenge);
  }
  const refusal = await checkAttemptLimit(context, "signIn", challenge.email);
  if (refusal) return toasts.redirectWithError(signInPage, `toasts:${refusal.messageKey}`, clearChallenge);
  const device = await readOrCreateDeviceKey(config, request);
  try {
    const result = await completePasskeySignIn(services, {
      email: challenge.email,
      challenge,
      credential: parsed.data.credential,
      deviceKey: device.deviceKey,
      userAgent: request.headers.get("User-Agent"),
      clientIp: clientIpOf(context),
      locale,
    });
    const setCookies = [
      ...(device.setCookie ? [device.setCookie] : []),
      await passkeyChallengeCookie.clear(config),
      ...(await signedInCookies(config, result)),
    ];
    return await redirectAfterSignIn(context, request, { locale, config, result, setCookies });
  } catch (error) {
    return toasts.redirectWithError(signInPage, messageKeyOf(domainErrorOf(error)), clearChallenge);
  }
}
