import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuthenticatorCodeField } from "~/components/form/authenticator-code-field";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { FormAlert, InputField, ReadOnlyEmailField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { codeChallengeCookie } from "~/cookies/app-cookies.server";
import { AuthenticatorCodeSchema, RecoveryCodeSignInSchema } from "~/domain/forms/two-step-schemas";
import { toDomainError } from "~/domain/domain-error.server";
import { secondStepStandingOf } from "~/domain/security/second-step-guard.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-two-step";
import { readCodeChallenge, redirectAfterSignIn, signInWithSecondFactor } from "./sign-in-flow.server";

/** The query parameter that switches the page to the recovery-code form (a link, so no JavaScript is needed). */
const RECOVERY_PARAM = "method";
const RECOVERY_VALUE = "recovery-code";

/** This page with the other form: `to` and any other parameter kept. */
function switchedUrl(url: URL, recovery: boolean): string {
  const params = new URLSearchParams(url.search);
  if (recovery) params.set(RECOVERY_PARAM, RECOVERY_VALUE);
  else params.delete(RECOVERY_PARAM);
  const query = params.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}

/**
 * A member with 2-step verification, second step (Cognito's SOFTWARE_TOKEN_MFA): the sign-in form sends them here
 * with the challenge in a short-lived cookie. Without one there is nothing to answer: back to sign in (`to` kept).
 * Nothing about the account's second factors shows here (not how many recovery codes are left): whoever reaches
 * this step has given the password alone. The count is on /my/security/ and in the mail a recovery code's use sends.
 * An account whose second step is locked after too many refusals (second-step-guard) is told to reset its password
 * instead.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { db, config, clock } = servicesOf(context);
  const challenge = await readCodeChallenge(config, request);
  if (!challenge) throw redirect(`${pathFor("auth-sign-in", getLocale(context))}${url.search}`);
  const recovery = url.searchParams.get(RECOVERY_PARAM) === RECOVERY_VALUE;
  const locked = (await secondStepStandingOf(db, challenge.username, clock.now())).kind === "locked";
  return {
    view: locked ? ("locked" as const) : recovery ? ("recovery" as const) : ("code" as const),
    title: getInstance(context).t("auth:twoStep.title"),
    translations: loadTranslations(context, [{ namespace: "auth", keys: ["twoStep"] }, FORM_FIELD_TEXTS]),
    email: challenge.email,
    otherMethodUrl: switchedUrl(url, !recovery),
    constraint: formConstraint(recovery ? RecoveryCodeSignInSchema : AuthenticatorCodeSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const { config } = servicesOf(context);
  const locale = getLocale(context);
  const signInAgain = `${pathFor("auth-sign-in", locale)}${url.search}`;
  /** The challenge is gone or Cognito's session ran out: sign in again, told why. */
  const startOver = async () =>
    getToastUtils(context).redirectWithError(signInAgain, "codeStepExpired", {
      headers: new Headers({ "Set-Cookie": await codeChallengeCookie.clear(config) }),
    });
  const challenge = await readCodeChallenge(config, request);
  if (!challenge) return startOver();
  const formData = await request.formData();
  // Each code tried counts as a sign-in call from this client; the member's wrong codes are counted by the verb.
  const attemptLimit = () => ({ action: "signIn" as const });
  const finish = async (answer: { code: string } | { recoveryCode: string; password: string }) => {
    try {
      const signedIn = await signInWithSecondFactor(context, request, { challenge, ...answer }, locale);
      return redirectAfterSignIn(context, { request, url }, { locale, config, ...signedIn });
    } catch (error) {
      if (toDomainError(error)?.code === "challengeExpired") return startOver();
      throw error;
    }
  };

  if (formData.get("intent") === "recovery-code") {
    return handleFormPost(
      context,
      formData,
      {
        schema: RecoveryCodeSignInSchema,
        extra: { form: "recovery" as const },
        hideFields: ["password", "recoveryCode"],
        attemptLimit,
        errorFields: { recoveryCodeMismatch: "recoveryCode" },
      },
      (value) => finish(value),
    );
  }
  return handleFormPost(
    context,
    formData,
    {
      schema: AuthenticatorCodeSchema,
      extra: { form: "code" as const },
      hideFields: ["code"],
      attemptLimit,
      errorFields: { authenticatorCodeMismatch: "code" },
    },
    (value) => finish(value),
  );
}

export default function TwoStepPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("auth");
  const { view, email, otherMethodUrl, constraint } = loaderData;
  const lastResult = actionData?.form === view ? actionData.result : undefined;
  if (view === "locked") {
    return (
      <section className="content auth-page">
        <h1>{t("twoStep.title")}</h1>
        <p role="alert">{t("twoStep.lockedLead")}</p>
        <p>
          <AppLink className="button button--primary" to={pathFor("auth-forgot-password", i18n.language)}>
            {t("twoStep.resetPassword")}
          </AppLink>
        </p>
        <p>
          <AppLink to={pathFor("auth-sign-in", i18n.language)}>{t("twoStep.backToSignIn")}</AppLink>
        </p>
      </section>
    );
  }
  return (
    <section className="content auth-page">
      <h1>{t("twoStep.title")}</h1>
      {view === "code" ? (
        <CodeForm email={email} constraint={constraint} lastResult={lastResult} />
      ) : (
        <RecoveryForm email={email} constraint={constraint} lastResult={lastResult} />
      )}
      <p>
        <AppLink to={otherMethodUrl}>{t(view === "code" ? "twoStep.useRecoveryCode" : "twoStep.useApp")}</AppLink>
      </p>
      <p>
        <AppLink to={pathFor("auth-sign-in", i18n.language)}>{t("twoStep.backToSignIn")}</AppLink>
      </p>
    </section>
  );
}

interface StepFormProps {
  email: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}

function CodeForm({ email, constraint, lastResult }: StepFormProps) {
  const { t } = useTranslation("auth");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof AuthenticatorCodeSchema>(constraint, lastResult, {
    secretFields: ["code"],
  });
  return (
    <>
      <p>{t("twoStep.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ReadOnlyEmailField label={t("twoStep.email")} email={email} />
        <AuthenticatorCodeField label={t("twoStep.code")} field={fields.code} enterKeyHint="go" />
        <Button name="intent" value="code" pending={navigation.state === "submitting"} block>
          {t("twoStep.submit")}
        </Button>
      </Form>
    </>
  );
}

function RecoveryForm({ email, constraint, lastResult }: StepFormProps) {
  const { t } = useTranslation("auth");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof RecoveryCodeSignInSchema>(constraint, lastResult, {
    secretFields: ["password", "recoveryCode"],
  });
  return (
    <>
      <p>{t("twoStep.recoveryLead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ReadOnlyEmailField label={t("twoStep.email")} email={email} />
        <InputField
          label={t("twoStep.recoveryCode")}
          errors={fields.recoveryCode.errors}
          inputProps={{
            ...getInputProps(fields.recoveryCode, { type: "text" }),
            inputMode: "text",
            autoComplete: "off",
            autoCapitalize: "none",
            spellCheck: false,
            enterKeyHint: "next",
          }}
        />
        <CurrentPasswordField label={t("twoStep.password")} field={fields.password} enterKeyHint="go" />
        <Button name="intent" value="recovery-code" pending={navigation.state === "submitting"} block>
          {t("twoStep.submit")}
        </Button>
      </Form>
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
