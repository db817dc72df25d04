import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost, newPasswordErrorFields } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, InputField, ReadOnlyEmailField } from "~/components/form/fields";
import { NewPasswordField } from "~/components/form/new-password-field";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { ConfirmPasswordResetSchema, RequestPasswordResetSchema } from "~/domain/forms/password-schemas";
import { confirmPasswordReset, requestPasswordReset } from "~/domain/account/password-reset.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-forgot-password";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { clearPasswordReset, readPasswordReset, serializePasswordReset } from "./auth-forgot-password.server";

/** The step comes from the reset cookie alone, so a refresh or JavaScript being off never loses the member's place. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const i18n = getInstance(context);
  // Each step's own texts only: whatever the loader sends is weighed with the page's JavaScript.
  const translationsFor = (step: "request" | "confirm") =>
    loadTranslations(context, [{ namespace: "passwordReset", keys: [step, "backToSignIn"] }, FORM_FIELD_TEXTS]);
  const pending = await readPasswordReset(servicesOf(context).config, request);
  if (pending) {
    return {
      view: "confirm" as const,
      title: i18n.t("passwordReset:confirm.title"),
      translations: translationsFor("confirm"),
      email: pending.email,
      resent: pending.sends > 1,
      constraint: formConstraint(ConfirmPasswordResetSchema),
    };
  }
  return {
    view: "request" as const,
    title: i18n.t("passwordReset:request.title"),
    translations: translationsFor("request"),
    constraint: formConstraint(RequestPasswordResetSchema),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  const here = pathFor("auth-forgot-password", locale);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const services = servicesOf(context);
  const { config } = services;
  const pending = await readPasswordReset(config, request);

  if (intent === "start-over") throw redirect(here, { headers: setCookie(await clearPasswordReset(config)) });
  // The 30 minutes are over (or the cookie is gone): back to the first step.
  if ((intent === "resend" || intent === "confirm") && !pending) throw redirect(here);

  if (intent === "resend" && pending) {
    // Another reset mail: it counts with the requests, as a Cognito throttle would answer (a toast, same step).
    const limited = await checkAttemptLimit(context, { action: "forgotPassword", subject: pending.email });
    if (limited) return getToastUtils(context).redirectWithError(here, limited.messageKey);
    try {
      await requestPasswordReset(services, pending.email, locale);
    } catch (error) {
      return getToastUtils(context).redirectWithError(here, messageKeyOf(domainErrorOf(error)));
    }
    throw redirect(here, {
      headers: setCookie(await serializePasswordReset(config, pending.email, pending.sends + 1)),
    });
  }

  if (intent === "confirm" && pending) {
    return handleFormPost(
      context,
      formData,
      {
        schema: ConfirmPasswordResetSchema,
        extra: { form: "confirm" as const },
        hideFields: ["password"],
        attemptLimit: () => ({ action: "codeCheck", subject: pending.email }),
        errorFields: newPasswordErrorFields("password"),
      },
      async (value) => {
        await confirmPasswordReset(services, {
          email: pending.email,
          ...value,
          clientIp: clientIpOf(context),
          locale,
        });
        return getToastUtils(context).redirectWithSuccess(pathFor("auth-sign-in", locale), "passwordChanged", {
          headers: setCookie(await clearPasswordReset(config)),
        });
      },
    );
  }

  return handleFormPost(
    context,
    formData,
    {
      schema: RequestPasswordResetSchema,
      extra: { form: "request" as const },
      attemptLimit: ({ email }) => ({ action: "forgotPassword", subject: email }),
    },
    async ({ email }) => {
      await requestPasswordReset(services, email, locale);
      // Known or not, the answer is this same redirect, so the page tells nobody whether an address has an ID: only
      // the cookie's address differs.
      throw redirect(here, { headers: setCookie(await serializePasswordReset(config, email, 1)) });
    },
  );
}

function setCookie(cookie: string): Headers {
  return new Headers({ "Set-Cookie": cookie });
}

export default function ForgotPasswordPage({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.view === "confirm") {
    return (
      <ConfirmStep
        email={loaderData.email}
        resent={loaderData.resent}
        constraint={loaderData.constraint}
        lastResult={actionData?.form === "confirm" ? actionData.result : undefined}
      />
    );
  }
  return (
    <RequestStep
      constraint={loaderData.constraint}
      lastResult={actionData?.form === "request" ? actionData.result : undefined}
    />
  );
}

function RequestStep({
  constraint,
  lastResult,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("passwordReset");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof RequestPasswordResetSchema>(constraint, lastResult);
  return (
    <section className="content auth-page">
      <h1>{t("request.title")}</h1>
      <p>{t("request.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("request.email")}
          errors={fields.email.errors}
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "username",
            inputMode: "email",
            enterKeyHint: "send",
          }}
        />
        <Button name="intent" value="request" pending={navigation.state === "submitting"} block>
          {t("request.submit")}
        </Button>
      </Form>
      <BackToSignIn />
    </section>
  );
}

function ConfirmStep({
  email,
  resent,
  constraint,
  lastResult,
}: {
  email: string;
  resent: boolean;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("passwordReset");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof ConfirmPasswordResetSchema>(constraint, lastResult, {
    secretFields: ["password"],
  });
  const submitting = navigation.state === "submitting" && navigation.formData?.get("intent") === "confirm";
  return (
    <section className="content auth-page">
      <h1>{t("confirm.title")}</h1>
      <p>{t(resent ? "confirm.resentLead" : "confirm.lead", { email })}</p>
      {/* The same words for everyone: whether the address belongs to an invited member is not told. */}
      <p>{t("confirm.invitationNote")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ReadOnlyEmailField label={t("confirm.email")} email={email} />
        <InputField
          label={t("confirm.code")}
          errors={fields.code.errors}
          inputProps={{
            ...getInputProps(fields.code, { type: "text" }),
            inputMode: "numeric",
            autoComplete: "one-time-code",
            enterKeyHint: "next",
          }}
        />
        <NewPasswordField label={t("confirm.password")} field={fields.password} />
        <Button name="intent" value="confirm" pending={submitting} block>
          {t("confirm.submit")}
        </Button>
      </Form>
      <Form method="post" className="actions">
        <span className="actions__prompt">{t("confirm.noCode")}</span>
        <Button name="intent" value="resend" variant="secondary">
          {t("confirm.resend")}
        </Button>
        <Button name="intent" value="start-over" variant="text">
          {t("confirm.startOver")}
        </Button>
      </Form>
      <BackToSignIn />
    </section>
  );
}

function BackToSignIn() {
  const { t, i18n } = useTranslation("passwordReset");
  return (
    <p>
      <AppLink to={pathFor("auth-sign-in", i18n.language)}>{t("backToSignIn")}</AppLink>
    </p>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];

/** The confirm step shows the address from this browser's cookie: never kept by a shared or disk cache. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });
