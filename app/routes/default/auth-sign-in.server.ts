/** The sign-in page's own server half: its passkey posts (the password's is sign-in-flow.server.ts, shared). */
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { type RouterContextProvider, data } from "react-router";
import { passkeyChallengeCookie, readOrCreateDeviceKey } from "~/cookies/app-cookies.server";
import {
  beginPasskeyAutofillSignIn,
  beginPasskeySignIn,
  completePasskeySignIn,
  openPasskeyChallenge,
  sealPasskeyChallenge,
} from "~/domain/account/passkey-sign-in.server";
import type { SignInResult } from "~/domain/account/sign-in.server";
import {
  PasskeyAutofillPickSchema,
  PasskeySignInAnswerSchema,
  PasskeySignInStartSchema,
} from "~/domain/forms/passkey-schemas";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import type { Locale } from "~/i18n/locales";
import { isCredentialRefusal } from "~/domain/limits/sign-in-failures.server";
import { allowSignInAttempt, checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import { redirectAfterSignIn, signedInCookies } from "./sign-in-flow.server";
import type { PageRequest } from "~/routing/page-request";

/** The sign-in form's passkey posts, told apart from the password's by their intent. */
const PASSKEY_SIGN_IN_INTENTS = ["passkey-options", "passkey-autofill", "passkey-sign-in"] as const;
type PasskeySignInIntent = (typeof PASSKEY_SIGN_IN_INTENTS)[number];

export function isPasskeySignInIntent(intent: unknown): intent is PasskeySignInIntent {
  return PASSKEY_SIGN_IN_INTENTS.includes(intent as PasskeySignInIntent);
}

/** How long the challenge cookie may live; Cognito's own Session (AuthSessionValidity) decides first. */
const PASSKEY_CHALLENGE_MAX_AGE_MS = 15 * 60 * 1000;

/**
 * "Log in with a passkey", two posts and two Cognito calls. `passkey-options` (the button, with the address typed):
 * Cognito's WEB_AUTHN challenge, its request options answered as the page's action data for the browser and its
 * Session kept in a signed cookie; a refusal is a message beside the button, the address kept. `passkey-sign-in`
 * (the page's script, the browser's assertion in it): the challenge answered, then the session starts and the member lands
 * exactly as after a password sign-in (device-limit screen included), or goes back to sign-in with the refusal.
 * `passkey-autofill` (the page's script, the credential id of the passkey picked from the e-mail field's autofill
 * list) answers as `passkey-options` does, for the member whose passkey it is; its refusal is the wrong passkey's,
 * whatever the reason, and never names the address. Each post counts as a sign-in call from the client; a passkey
 * Cognito refuses counts against the passkey's own budgets for the address (app/domain/limits/sign-in-failures),
 * which strangers' wrong passwords do not touch.
 */
export async function passkeySignInAction(
  context: Readonly<RouterContextProvider>,
  page: PageRequest,
  input: { formData: FormData; intent: PasskeySignInIntent; locale: Locale; signInPage: string },
) {
  const { request } = page;
  const services = servicesOf(context);
  const { config } = services;
  const { formData, locale, signInPage } = input;
  if (input.intent !== "passkey-sign-in") {
    const t = getInstance(context).getFixedT(locale) as unknown as (key: string) => string;
    const refuse = (messageKey: string, status: number) => data({ passkeyRefusal: t(messageKey) }, { status });
    const begin = input.intent === "passkey-options" ? startFromAddress(formData) : startFromAutofillPick(formData);
    if ("messageKey" in begin) return refuse(begin.messageKey, 400);
    const refusal = await checkAttemptLimit(context, { action: "signIn" });
    if (refusal) return refuse(`toasts:${refusal.messageKey}`, 429);
    try {
      const { requestOptionsJson, ...challenge } = await begin.start(services);
      const expiresAt = services.clock.now().getTime() + PASSKEY_CHALLENGE_MAX_AGE_MS;
      const sealed = sealPasskeyChallenge(challenge, { secrets: config.sessionSecrets, expiresAt });
      const cookie = await passkeyChallengeCookie.serialize(config, sealed);
      const passkeyRequestOptions = JSON.parse(requestOptionsJson) as PublicKeyCredentialRequestOptionsJSON;
      return data({ passkeyRequestOptions }, { headers: { "Set-Cookie": cookie } });
    } catch (error) {
      const refused = domainErrorOf(error);
      return refuse(messageKeyOf(refused), httpStatusOf(refused));
    }
  }

  const toasts = getToastUtils(context);
  const clearChallenge = { headers: { "Set-Cookie": await passkeyChallengeCookie.clear(config) } };
  const sealed = await passkeyChallengeCookie.read(config, request);
  const challenge =
    sealed && openPasskeyChallenge(sealed, { secrets: config.sessionSecrets, now: services.clock.now().getTime() });
  const parsed = PasskeySignInAnswerSchema.safeParse({ credential: formData.get("credential") });
  if (!challenge || !parsed.success) {
    return toasts.redirectWithError(signInPage, "passkeys:errors.refused", clearChallenge);
  }
  const allowed = await allowSignInAttempt(context, { door: "passkey", email: challenge.email, request });
  if ("refusal" in allowed) {
    return toasts.redirectWithError(signInPage, `toasts:${allowed.refusal.messageKey}`, clearChallenge);
  }
  const device = await readOrCreateDeviceKey(config, request);
  let result: SignInResult;
  try {
    result = await completePasskeySignIn(services, {
      email: challenge.email,
      challenge,
      credential: parsed.data.credential,
      deviceKey: device.deviceKey,
      userAgent: request.headers.get("User-Agent"),
      clientIp: clientIpOf(context),
      locale,
    });
  } catch (error) {
    await allowed.settle({ refused: isCredentialRefusal(error) });
    return toasts.redirectWithError(signInPage, messageKeyOf(domainErrorOf(error)), clearChallenge);
  }
  await allowed.settle({ refused: false });
  const setCookies = [
    ...(device.setCookie ? [device.setCookie] : []),
    await passkeyChallengeCookie.clear(config),
    ...(await signedInCookies(config, result)),
  ];
  return redirectAfterSignIn(context, page, { locale, config, result, setCookies });
}

type ChallengeStart =
  | { messageKey: string }
  | { start: (services: ReturnType<typeof servicesOf>) => ReturnType<typeof beginPasskeySignIn> };

/** The button's post: the address typed. */
function startFromAddress(formData: FormData): ChallengeStart {
  const parsed = PasskeySignInStartSchema.safeParse({ email: formData.get("email") });
  if (!parsed.success) return { messageKey: "passkeys:errors.emailFirst" };
  return { start: (services) => beginPasskeySignIn(services, parsed.data) };
}

/** The autofill pick's post: a credential id only; a malformed one reads as any unusable passkey. */
function startFromAutofillPick(formData: FormData): ChallengeStart {
  const parsed = PasskeyAutofillPickSchema.safeParse({ credentialId: formData.get("credentialId") });
  if (!parsed.success) return { messageKey: "passkeys:errors.refused" };
  return { start: (services) => beginPasskeyAutofillSignIn(services, parsed.data) };
}
