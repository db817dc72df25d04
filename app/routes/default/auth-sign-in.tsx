import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import type { PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { nameDevice, toDeviceRows } from "~/components/device-rows.server";
import { DeactivateDeviceForm, type DeviceRow, DeviceTable } from "~/components/device-table";
import { findSignInAddresses } from "~/domain/sessions/device-list.server";
import { PasskeySignInButton, usePasskeyAutofill } from "~/components/passkeys/passkey-sign-in-button";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { pendingSignInCookie } from "~/cookies/app-cookies.server";
import { SignInSchema } from "~/domain/forms/sign-in-schemas";
import {
  continuePendingSignIn,
  deactivateDeviceForPendingSignIn,
  listDevicesForPendingSession,
} from "~/domain/sessions/device-admission.server";
import { displayName } from "~/domain/account/display-name.server";
import { DomainError } from "~/domain/domain-error.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";
import { type TranslationRequest, loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { getMember } from "~/middleware/member-session.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-sign-in";
import { activeSessionCookies, redirectAfterSignIn, returnTargetFrom, signInWithPassword } from "./sign-in-flow.server";
import { isPasskeySignInIntent, passkeySignInAction } from "./auth-sign-in.server";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = servicesOf(context);
  const locale = getLocale(context);
  // Each view's own texts only: the sign-in form is every visitor's, the other two views are rare.
  const textsOf = (view: "signIn" | "alreadySignedIn" | "deviceLimit", more: TranslationRequest[] = []) =>
    loadTranslations(context, [{ namespace: "auth", keys: [view] }, ...more]);
  const title = getInstance(context).t("auth:signIn.title");
  const member = getMember(context);
  if (member) {
    return {
      view: "alreadySignedIn" as const,
      title,
      translations: textsOf("alreadySignedIn"),
      name: displayName(member, locale),
      email: member.email,
      continueTo: await returnTargetFrom({ request, url }, locale, services.config),
    };
  }
  const pending = await pendingSignInCookie.read(services.config, request);
  const listed = pending ? await listDevicesForPendingSession(services, pending) : null;
  if (listed) {
    return {
      view: "deviceLimit" as const,
      title,
      translations: textsOf("deviceLimit"),
      deviceLimit: services.config.deviceLimit,
      // This browser first, marked; the count is of the devices it competes with (the count's text says so). It
      // signs in from here, so its IP is this request's.
      devices: toDeviceRows(
        [listed.signingIn, ...listed.devices],
        new Map([
          ...(await findSignInAddresses(
            services.db,
            listed.sub,
            listed.devices.map((device) => device.id),
          )),
          [listed.signingIn.id, clientIpOf(context)],
        ]),
      ),
      signedInCount: listed.devices.length,
    };
  }
  return {
    view: "form" as const,
    title,
    translations: textsOf("signIn", [
      FORM_FIELD_TEXTS,
      { namespace: "passkeys", keys: ["signIn", "toasts.cancelled", "errors.refused"] },
    ]),
    constraint: formConstraint(SignInSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const { config } = services;
  const locale = getLocale(context);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const here = `${pathFor("auth-sign-in", locale)}${url.search}`;
  const toasts = getToastUtils(context);
  const pending = await pendingSignInCookie.read(config, request);
  /** Back from the device-limit screen, or the held sign-in expired: it is dropped. */
  const abandonPending = async (pendingSessionId: string) => {
    await endSessions(services, { sessionId: pendingSessionId });
    return toHeaders([await pendingSignInCookie.clear(config)]);
  };

  if (intent === "deactivate" && pending) {
    const ended = await deactivateDeviceForPendingSignIn(services, {
      pendingSessionId: pending,
      deviceSessionId: String(formData.get("device") ?? ""),
      clientIp: clientIpOf(context),
    });
    return ended
      ? toasts.redirectWithSuccess(here, {
          message: "deviceDeactivated",
          values: { device: nameDevice(getInstance(context).getFixedT(locale, "auth"), ended) },
        })
      : toasts.redirectWithError(here, "deviceDeactivateFailed");
  }
  if (intent === "continue" && pending) {
    // Cognito down or throttling: the sign-in stays held (no slot taken) and the screen says why.
    const continued = await continuePendingSignIn(services, pending).catch(domainErrorOf);
    if (continued instanceof DomainError) return toasts.redirectWithError(here, messageKeyOf(continued));
    if (continued.kind === "active") {
      const setCookies = await activeSessionCookies(config, continued.sessionId, continued.accessToken);
      return redirectAfterSignIn(context, { request, url }, { locale, config, result: continued, setCookies });
    }
    if (continued.kind === "deviceLimit") return toasts.redirectWithInfo(here, "deviceLimitExceeded");
    return toasts.redirectWithError(here, "loginFailed", { headers: await abandonPending(pending) });
  }
  if (intent === "back" && pending) {
    throw redirect(here, { headers: await abandonPending(pending) });
  }

  if (isPasskeySignInIntent(intent)) {
    return passkeySignInAction(context, { request, url }, { formData, intent, locale, signInPage: here });
  }

  return handleFormPost(
    context,
    formData,
    {
      schema: SignInSchema,
      hideFields: ["password"],
      signInLimit: ({ email }) => ({ door: "member", email, request }),
    },
    async (value) => {
      const { result, setCookies } = await signInWithPassword(context, request, value, locale);
      if (result.kind === "newPasswordRequired" || result.kind === "codeRequired") {
        // An invited member's temporary password: their own password first; 2-step verification: the code. Each on
        // its own page (`to` kept); the device-limit screen comes after either.
        const step = result.kind === "newPasswordRequired" ? "auth-new-password" : "auth-two-step";
        throw redirect(`${pathFor(step, locale)}${url.search}`, { headers: toHeaders(setCookies) });
      }
      return redirectAfterSignIn(context, { request, url }, { locale, config, result, setCookies });
    },
  );
}

function toHeaders(setCookies: string[]): Headers {
  const headers = new Headers();
  for (const cookie of setCookies) headers.append("Set-Cookie", cookie);
  return headers;
}

export default function SignInPage({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.view === "alreadySignedIn") return <AlreadySignedIn {...loaderData} />;
  if (loaderData.view === "deviceLimit") return <DeviceLimit {...loaderData} />;
  const passkey = actionData && !("result" in actionData) ? actionData : undefined;
  const lastResult = actionData && "result" in actionData ? actionData.result : undefined;
  return <SignInForm constraint={loaderData.constraint} lastResult={lastResult} passkey={passkey} />;
}

function SignInForm({
  constraint,
  lastResult,
  passkey,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
  /** The passkey button's answer: Cognito's request options, or why there are none. */
  passkey: { passkeyRequestOptions?: object; passkeyRefusal?: string } | undefined;
}) {
  const { t, i18n } = useTranslation("auth");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof SignInSchema>(constraint, lastResult, { secretFields: ["password"] });
  const autofill = usePasskeyAutofill();
  return (
    <section className="content auth-page">
      <h1>{t("signIn.title")}</h1>
      <p>{t("signIn.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form" data-passkey-autofill={autofill}>
        <FormAlert form={form} />
        <InputField
          label={t("signIn.email")}
          errors={fields.email.errors}
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: autofill === "no" ? "username" : "username webauthn",
            inputMode: "email",
            enterKeyHint: "next",
          }}
        />
        <CurrentPasswordField label={t("signIn.password")} field={fields.password} enterKeyHint="go" />
        <Button name="intent" value="sign-in" pending={navigation.state === "submitting"} block>
          {t("signIn.submit")}
        </Button>
        <PasskeySignInButton
          // The options as Cognito sent them; React Router's serialized type only loosens WebAuthn's.
          requestOptions={passkey?.passkeyRequestOptions as PublicKeyCredentialRequestOptionsJSON | undefined}
          refusal={passkey?.passkeyRefusal}
          pending={navigation.state === "submitting"}
        />
      </Form>
      <p>
        <AppLink to={pathFor("auth-forgot-password", i18n.language)}>{t("signIn.forgotPassword")}</AppLink>
      </p>
      <p>
        {t("signIn.noAccount")} <AppLink to={pathFor("auth-sign-up", i18n.language)}>{t("signIn.signUp")}</AppLink>
      </p>
    </section>
  );
}

function AlreadySignedIn({ name, email, continueTo }: { name: string; email: string; continueTo: string }) {
  const { t } = useTranslation("auth");
  return (
    <section className="content auth-page">
      <h1>{t("alreadySignedIn.title")}</h1>
      <p>{t("alreadySignedIn.lead")}</p>
      <dl className="definition-list">
        <dt>{t("alreadySignedIn.name")}</dt>
        <dd>{name}</dd>
        <dt>{t("alreadySignedIn.email")}</dt>
        <dd>{email}</dd>
      </dl>
      <p>
        <AppLink className="button button--primary" to={continueTo} reloadDocument={/^https?:/.test(continueTo)}>
          {t("alreadySignedIn.continue")}
        </AppLink>
      </p>
    </section>
  );
}

function DeviceLimit({
  deviceLimit,
  devices,
  signedInCount,
}: {
  deviceLimit: number;
  devices: DeviceRow[];
  signedInCount: number;
}) {
  const { t } = useTranslation("auth");
  return (
    <section className="content auth-page device-limit">
      <h1>{t("deviceLimit.title")}</h1>
      <p>{t("deviceLimit.lead", { deviceLimit })}</p>
      <p data-testid="device-count">{t("deviceLimit.count", { count: signedInCount })}</p>
      {/* Not this browser's own row: "Back" is how it gives up its sign-in. */}
      <DeviceTable
        devices={devices}
        currentLabel={t("deviceLimit.current")}
        action={(device) => (device.current ? t("deviceLimit.signingIn") : <DeactivateDeviceForm device={device} />)}
      />
      <Form method="post" className="actions">
        <Button name="intent" value="continue">
          {t("deviceLimit.continue")}
        </Button>
        <Button name="intent" value="back" variant="text">
          {t("deviceLimit.back")}
        </Button>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
