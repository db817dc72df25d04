/** The sign-in page's own server half: its passkey posts (the password form's is sign-in-flow.server.ts, shared). */
import { type RouterContextProvider, data } from "react-router";
import { passkeyChallengeCookie, readOrCreateDeviceKey } from "~/cookies/app-cookies.server";
import { beginPasskeySignIn, completePasskeySignIn } from "~/domain/account/passkey-sign-in.server";
import { PasskeySignInAnswerSchema, PasskeySignInStartSchema } from "~/domain/forms/passkey-schemas";
import type { Locale } from "~/i18n/locales";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance } from "~/middleware/i18n.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import { redirectAfterSignIn, signedInCookies } from "./sign-in-flow.server";

/** The sign-in page's passkey posts, told apart from the password form's by their intent. */
export const PASSKEY_SIGN_IN_INTENTS = ["passkey-options", "passkey-sign-in"] as const;

export function isPasskeySignInIntent(intent: unknown): intent is (typeof PASSKEY_SIGN_IN_INTENTS)[number] {
  return PASSKEY_SIGN_IN_INTENTS.includes(intent as (typeof PASSKEY_SIGN_IN_INTENTS)[number]);
}

/**
 * "Sign in with a passkey", two posts and two Cognito calls. `passkey-options` (the button's script, through a
 * fetcher, with the address typed): Cognito's WEB_AUTHN challenge, its request options answered as JSON for the
 * browser and its Session kept in a signed cookie; a refusal is answered as a message for the script to show.
 * `passkey-sign-in` (the script's form, the browser's assertion in a hidden input): the challenge answered, then the
 * session starts and the member lands exactly as after a password sign-in (device-limit screen included). Each
 * post counts as a sign-in attempt for the address.
 */
export async function passkeySignInAction(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { formData: FormData; intent: (typeof PASSKEY_SIGN_IN_INTENTS)[number]; locale: Locale; here: string },
) {
  const services = servicesOf(context);
  const { config } = services;
  const t = getInstance(context).getFixedT(input.locale) as unknown as (key: string) => string;
  if (input.intent === "passkey-options") {
    const refuse = (messageKey: string, status: number) => data({ error: t(messageKey) }, { status });
    const parsed = PasskeySignInStartSchema.safeParse({ email: input.formData.get("email") });
    if (!parsed.success) return refuse("passkeys:errors.emailFirst", 400);
    const refusal = await checkAttemptLimit(context, "signIn", parsed.data.email);
    if (refusal) return refuse(`toasts:${refusal.messageKey}`, 429);
    try {
      const { requestOptionsJson, ...challenge } = await beginPasskeySignIn(services, parsed.data);
      const expiresAt = services.clock.now().getTime() + 15 * 60 * 1000;
      const cookie = await passkeyChallengeCookie.serialize(config, { ...challenge, expiresAt });
      return data(
        { requestOptions: JSON.parse(requestOptionsJson) as Record<string, unknown> },
        { headers: { "Set-Cookie": cookie } },
      );
    } catch (error) {
      const refused = domainErrorOf(error);
      return refuse(messageKeyOf(refused), httpStatusOf(refused));
    }
  }

  const toasts = getToastUtils(context);
  const clearChallenge = { headers: { "Set-Cookie": await passkeyChallengeCookie.clear(config) } };
  const challenge = await passkeyChallengeCookie.read(config, request);
  const parsed = PasskeySignInAnswerSchema.safeParse({ credential: input.formData.get("credential") });
  if (!challenge || challenge.expiresAt <= services.clock.now().getTime() || !parsed.success) {
    return toasts.redirectWithError(input.here, "passkeys:errors.refused", clearChallenge);
  }
  const refusal = await checkAttemptLimit(context, "signIn", challenge.email);
  if (refusal) return toasts.redirectWithError(input.here, `toasts:${refusal.messageKey}`, clearChallenge);
  const device = await readOrCreateDeviceKey(config, request);
  try {
    const result = await completePasskeySignIn(services, {
      email: challenge.email,
      challenge,
      credential: parsed.data.credential,
      deviceKey: device.deviceKey,
      userAgent: request.headers.get("User-Agent"),
      clientIp: clientIpOf(context),
      locale: input.locale,
    });
    const setCookies = [
      ...(device.setCookie ? [device.setCookie] : []),
      await passkeyChallengeCookie.clear(config),
      ...(await signedInCookies(config, result)),
    ];
    return await redirectAfterSignIn(context, request, { locale: input.locale, config, result, setCookies });
  } catch (error) {
    return toasts.redirectWithError(input.here, messageKeyOf(domainErrorOf(error)), clearChallenge);
  }
}
