/** The sign-in page's own server half: its passkey posts (the password's is sign-in-flow.server.ts, shared). */
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { type RouterContextProvider, data } from "react-router";
import { passkeyChallengeCookie, readOrCreateDeviceKey } from "~/cookies/app-cookies.server";
import { beginPasskeySignIn, completePasskeySignIn } from "~/domain/account/passkey-sign-in.server";
import { PasskeySignInAnswerSchema, PasskeySignInStartSchema } from "~/domain/forms/passkey-schemas";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import type { Locale } from "~/i18n/locales";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance } from "~/middleware/i18n.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import { redirectAfterSignIn, signedInCookies } from "./sign-in-flow.server";

/** The sign-in form's passkey posts, told apart from the password's by their intent. */
const PASSKEY_SIGN_IN_INTENTS = ["passkey-options", "passkey-sign-in"] as const;
type PasskeySignInIntent = (typeof PASSKEY_SIGN_IN_INTENTS)[number];

export function isPasskeySignInIntent(intent: unknown): intent is PasskeySignInIntent {
  return PASSKEY_SIGN_IN_INTENTS.includes(intent as PasskeySignInIntent);
}

/** How long the challenge cookie may live; Cognito's own Session (AuthSessionValidity) decides first. */
const PASSKEY_CHALLENGE_MAX_AGE_MS = 15 * 60 * 1000;

/**
 * "Sign in with a passkey", two posts and two Cognito calls. `passkey-options` (the button, with the address typed):
 * Cognito's WEB_AUTHN challenge, its request options answered as the page's action data for the browser and its
 * Session kept in a signed cookie; a refusal is a message beside the button, the address kept. `passkey-sign-in`
 * (the page's script, the browser's assertion in it): the challenge answered, then the session starts and the member lands
 * exactly as after a password sign-in (device-limit screen included), or goes back to sign-in with the refusal.
 * Each post counts as a sign-in attempt for the address.
 */
export async function passkeySignInAction(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { formData: FormData; intent: PasskeySignInIntent; locale: Locale; signInPage: string },
) {
  const services = servicesOf(context);
  const { config } = services;
  const { formData, locale, signInPage } = input;
  if (input.intent === "passkey-options") {
    const t = getInstance(context).getFixedT(locale) as unknown as (key: string) => string;
    const refuse = (messageKey: string, status: number) => data({ passkeyRefusal: t(messageKey) }, { status });
    const parsed = PasskeySignInStartSchema.safeParse({ email: formData.get("email") });
    if (!parsed.success) return refuse("passkeys:errors.emailFirst", 400);
    const refusal = await checkAttemptLimit(context, "signIn", parsed.data.email);
    if (refusal) return refuse(`toasts:${refusal.messageKey}`, 429);
    try {
      const { requestOptionsJson, ...challenge } = await beginPasskeySignIn(services, parsed.data);
      const expiresAt = services.clock.now().getTime() + PASSKEY_CHALLENGE_MAX_AGE_MS;
      const cookie = await passkeyChallengeCookie.serialize(config, { ...challenge, expiresAt });
      const passkeyRequestOptions = JSON.parse(requestOptionsJson) as PublicKeyCredentialRequestOptionsJSON;
      return data({ passkeyRequestOptions }, { headers: { "Set-Cookie": cookie } });
    } catch (error) {
      const refused = domainErrorOf(error);
      return refuse(messageKeyOf(refused), httpStatusOf(refused));
    }
  }

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
