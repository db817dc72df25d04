/**
 * The staff sign-in's passkey step and first visit's set-up, their server half: the password and code steps are the
 * route module's own.
 */
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { type RouterContextProvider, data, redirect } from "react-router";
import {
  STAFF_PASSKEY_STEP_COOKIE_MAX_AGE_S,
  staffFactorSetupCookie,
  staffPasskeyStepCookie,
  staffSessionCookie,
} from "~/cookies/app-cookies.server";
import { authenticatorSetupView } from "~/components/authenticator-setup-view.server";
import { handleFormPost } from "~/forms/form-action.server";
import { PasskeySignInAnswerSchema } from "~/domain/forms/passkey-schemas";
import { AuthenticatorCodeSchema } from "~/domain/forms/two-step-schemas";
import {
  type StaffFactorSetup,
  abandonStaffFactorSetup,
  staffFactorSetupOf,
} from "~/domain/sessions/staff-factor-setup.server";
import { completeStaffFactorSetup } from "~/domain/sessions/staff-sessions.server";
import {
  type StaffPasskeyStep,
  beginStaffPasskeyChallenge,
  completeStaffPasskeySignIn,
  openStaffPasskeyStep,
  sealStaffPasskeyStep,
} from "~/domain/sessions/staff-passkey-sign-in.server";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { isCredentialRefusal } from "~/domain/limits/sign-in-failures.server";
import { allowSignInAttempt, checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";

type Services = ReturnType<typeof servicesOf>;

/** The passkey step the browser holds, if its password step is still current. */
export async function readStaffPasskeyStep(services: Services, request: Request): Promise<StaffPasskeyStep | null> {
  const sealed = await staffPasskeyStepCookie.read(services.config, request);
  if (!sealed) return null;
  return openStaffPasskeyStep(sealed, { secrets: services.config.sessionSecrets, now: services.clock.now().getTime() });
}

/** The Set-Cookie of the passkey step right after a password step of staff whose second factor is a passkey. */
export async function startStaffPasskeyStep(services: Services, staff: { email: string; sub: string }) {
  const expiresAt = services.clock.now().getTime() + STAFF_PASSKEY_STEP_COOKIE_MAX_AGE_S * 1000;
  const sealed = sealStaffPasskeyStep({ ...staff, expiresAt }, services.config.sessionSecrets);
  return staffPasskeyStepCookie.serialize(services.config, sealed);
}

/**
 * "Use your passkey", two posts, each counted as a sign-in call from the client, and a passkey Cognito refuses as a
 * refusal at the staff sign-in's door (app/domain/limits/sign-in-failures.server.ts). `passkey-options`: Cognito's
 * WEB_AUTHN challenge on the staff client, its request options answered as action data for the page's script and
 * its Session sealed into the step; a refusal is a message beside the button. `passkey` (the script, with the
 * browser's assertion): Cognito checks it, and the staff session opens as after the code, back to `target`; a
 * refusal goes back to the step, told why. Without a current password step both start over at the password.
 */
export async function staffPasskeyAction(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { formData: FormData; intent: "passkey-options" | "passkey"; here: string; target: string },
) {
  const services = servicesOf(context);
  const { config } = services;
  const { here } = input;
  const toasts = getToastUtils(context);
  const step = await readStaffPasskeyStep(services, request);
  if (!step) {
    return toasts.redirectWithError(here, "codeStepExpired", {
      headers: { "Set-Cookie": await staffPasskeyStepCookie.clear(config) },
    });
  }
  if (input.intent === "passkey-options") {
    const limited = await checkAttemptLimit(context, { action: "signIn" });
    const t = getInstance(context).t as unknown as (key: string) => string;
    const refuse = (messageKey: string, status: number) =>
      data({ form: "passkey" as const, passkeyRefusal: t(messageKey) }, { status });
    if (limited) return refuse(`toasts:${limited.messageKey}`, 429);
    try {
      const started = await beginStaffPasskeyChallenge(services, step);
      const cookie = await staffPasskeyStepCookie.serialize(
        config,
        sealStaffPasskeyStep(started.step, config.sessionSecrets),
      );
      const passkeyRequestOptions = JSON.parse(started.requestOptionsJson) as PublicKeyCredentialRequestOptionsJSON;
      return data({ form: "passkey" as const, passkeyRequestOptions }, { headers: { "Set-Cookie": cookie } });
    } catch (error) {
      const refused = domainErrorOf(error);
      return refuse(messageKeyOf(refused), httpStatusOf(refused));
    }
  }

  const parsed = PasskeySignInAnswerSchema.safeParse({ credential: input.formData.get("credential") });
  if (!parsed.success) return toasts.redirectWithError(here, "passkeys:errors.refused");
  const allowed = await allowSignInAttempt(context, { door: "staff", email: step.email, request });
  if ("refusal" in allowed) return toasts.redirectWithError(here, `toasts:${allowed.refusal.messageKey}`);
  try {
    const previous = await staffSessionCookie.read(config, request);
    const opened = await completeStaffPasskeySignIn(services, {
      step,
      credential: parsed.data.credential,
      previousSessionId: previous?.sid,
    }).then(
      async (answer) => {
        await allowed.settle({ refused: false });
        return answer;
      },
      async (error: unknown) => {
        await allowed.settle({ refused: isCredentialRefusal(error) });
        throw error;
      },
    );
    const headers = new Headers({ "Set-Cookie": await staffPasskeyStepCookie.clear(config) });
    if (opened.kind === "notStaff") return toasts.redirectWithError(here, "staffSession:notStaff", { headers });
    const value = { sid: opened.sessionId, at: opened.accessToken };
    headers.append("Set-Cookie", await staffSessionCookie.serialize(config, value));
    return redirect(input.target, { headers });
  } catch (error) {
    // Cognito's challenge used or timed out, or the passkey refused: the step stays, and the button asks again.
    const refused = domainErrorOf(error);
    return toasts.redirectWithError(
      here,
      refused.code === "challengeExpired" ? "passkeys:errors.refused" : messageKeyOf(refused),
    );
  }
}

/** The first visit's set-up this browser holds, while it can still be made. */
export async function readStaffFactorSetup(services: Services, request: Request): Promise<StaffFactorSetup | null> {
  const cookie = await staffFactorSetupCookie.read(services.config, request);
  if (!cookie) return null;
  return staffFactorSetupOf(services.db, { id: cookie.setupId, secrets: services.config.sessionSecrets });
}

/** What the set-up view shows: Cognito's secret as a QR code and a key, for the staff member's address. */
export function staffFactorSetupView(services: Services, setup: StaffFactorSetup) {
  return authenticatorSetupView({ origin: services.config.origin, email: setup.email, secret: setup.secret });
}

/**
 * A staff member's first visit, after the password: `confirm` (the set-up's first code) turns the authenticator app
 * on and opens the staff session, answering the recovery codes to show once and the way on to `target`; a wrong code
 * is the field's message, counted as a code check. `cancel` gives the set-up up, back to the password. A set-up run
 * out (the server token's minutes) starts over at the password, told why.
 */
export async function staffFactorSetupAction(
  context: Readonly<RouterContextProvider>,
  request: Request,
  input: { formData: FormData; intent: "confirm" | "cancel"; here: string; target: string },
) {
  const services = servicesOf(context);
  const { config } = services;
  const toasts = getToastUtils(context);
  const setup = await readStaffFactorSetup(services, request);
  const clearCookie = { "Set-Cookie": await staffFactorSetupCookie.clear(config) };
  if (input.intent === "cancel") {
    if (setup) await abandonStaffFactorSetup(services, { id: setup.id });
    throw redirect(input.here, { headers: clearCookie });
  }
  if (!setup) return toasts.redirectWithError(input.here, "codeStepExpired", { headers: clearCookie });
  return handleFormPost(
    context,
    input.formData,
    {
      schema: AuthenticatorCodeSchema,
      extra: { form: "setup" as const },
      hideFields: ["code"],
      attemptLimit: () => ({ action: "codeCheck", subject: setup.sub }),
      errorFields: { authenticatorCodeMismatch: "code" },
    },
    async ({ code }, reply) => {
      const previous = await staffSessionCookie.read(config, request);
      const done = await completeStaffFactorSetup(services, {
        setup,
        code,
        clientIp: clientIpOf(context),
        locale: getLocale(context),
        previousSessionId: previous?.sid,
      });
      if (done.kind === "expired") {
        return toasts.redirectWithError(input.here, "codeStepExpired", { headers: clearCookie });
      }
      const headers = new Headers(clearCookie);
      if (done.kind === "notStaff") {
        return data(
          { form: "setup" as const, result: reply({ formErrors: ["staffSession:notStaff"] }) },
          { status: 403, headers },
        );
      }
      const value = { sid: done.sessionId, at: done.accessToken };
      headers.append("Set-Cookie", await staffSessionCookie.serialize(config, value));
      return data({ form: "codes" as const, codes: done.recoveryCodes, target: input.target }, { headers });
    },
  );
}
