import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, data, redirect, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { CheckboxField, CheckboxGroupField, FormAlert, InputField, RadioGroupField } from "~/components/form/fields";
import { useSchemaForm } from "~/components/form/use-schema-form";
import { ProfileFields } from "~/components/profile-fields";
import { useRootData } from "~/components/use-root-data";
import {
  AccountInfoSchema,
  ConfirmationCodeSchema,
  Q1_OPTIONS,
  Q2_OPTIONS,
  Q3_OPTIONS,
  SignUpSchema,
} from "~/domain/auth-schemas";
import { confirmSignUp, resendSignUpCode, saveAccountInfo, startSignUp } from "~/domain/sign-up.server";
import { replyWithDomainError } from "~/errors/error-responses.server";
import { countryChoices } from "~/i18n/country-names";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/routing/service-cookie.server";
import { servicesOf } from "~/services.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/sign-up";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { clearSignUpFlow, readSignUpFlow, saveSignUpFlow } from "./sign-up.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const locale = getLocale(context);
  // Signed in already: the sign-in page shows who, with Continue.
  if (getMember(context)) throw redirect(pathFor("auth-sign-in", locale));
  const flow = await readSignUpFlow(servicesOf(context).config, request);
  const t = getInstance(context).getFixedT(locale, "signUp");
  return data(
    {
      title: t("title"),
      translations: loadTranslations(context, ["signUp", "forms", "toasts"]),
      step: flow?.step ?? ("credentials" as const),
      email: flow?.email ?? null,
      countries: countryChoices(locale, t("options.otherCountry")),
    },
    // The completed screen is shown once; the flow's cookie goes with it.
    flow?.step === "done"
      ? { headers: { "Set-Cookie": await clearSignUpFlow(servicesOf(context).config) } }
      : undefined,
  );
}

type ActionResult = { intent: string; result: SubmissionResult<string[]> };

function withCookie(location: string, cookie: string) {
  return redirect(location, { headers: { "Set-Cookie": cookie } });
}

export async function action({ request, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  const here = pathFor("auth-sign-up", locale);
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const { db, identity, config } = servicesOf(context);
  const flow = await readSignUpFlow(config, request);

  if (intent === "restart") return withCookie(here, await clearSignUpFlow(config));

  if (intent === "resend" && flow?.step === "code") {
    const limited = await checkAttemptLimit(context, "codeResend", flow.email);
    if (limited) {
      const submission = parseWithZod(formData, { schema: ConfirmationCodeSchema });
      return data<ActionResult>(
        { intent, result: submission.reply({ formErrors: [limited.formError] }) },
        limited.init,
      );
    }
    try {
      await resendSignUpCode(identity, flow);
    } catch (error) {
      const submission = parseWithZod(formData, { schema: ConfirmationCodeSchema });
      return replyWithDomainError(submission, error, { extra: { intent } });
    }
    return getToastUtils(context).redirectWithSuccess(here, "codeResent");
  }

  if (intent === "code" && flow?.step === "code") {
    const submission = parseWithZod(formData, { schema: ConfirmationCodeSchema });
    if (submission.status !== "success")
      return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
    const limited = await checkAttemptLimit(context, "codeCheck", flow.email);
    if (limited)
      return data<ActionResult>(
        { intent, result: submission.reply({ formErrors: [limited.formError] }) },
        limited.init,
      );
    try {
      await confirmSignUp(identity, { ...flow, code: submission.value.code });
    } catch (error) {
      return replyWithDomainError(submission, error, { extra: { intent } });
    }
    return withCookie(here, await saveSignUpFlow(config, { ...flow, step: "account" }));
  }

  if (intent === "account" && flow?.step === "account") {
    const submission = parseWithZod(formData, { schema: AccountInfoSchema });
    if (submission.status !== "success")
      return data<ActionResult>({ intent, result: submission.reply() }, { status: 400 });
    try {
      await saveAccountInfo(
        { db, identity },
        { sub: flow.sub, info: submission.value, referrerService: await referrerServiceOf(request, config) },
      );
    } catch (error) {
      return replyWithDomainError(submission, error, { extra: { intent } });
    }
    return withCookie(here, await saveSignUpFlow(config, { ...flow, step: "done" }));
  }

  const submission = parseWithZod(formData, { schema: SignUpSchema });
  if (submission.status !== "success") {
    return data<ActionResult>(
      { intent: "credentials", result: submission.reply({ hideFields: ["password"] }) },
      { status: 400 },
    );
  }
  const limited = await checkAttemptLimit(context, "signUp", submission.value.email);
  if (limited) {
    const result = submission.reply({ formErrors: [limited.formError], hideFields: ["password"] });
    return data<ActionResult>({ intent: "credentials", result }, limited.init);
  }
  const { email, password } = submission.value;
  let sub: string;
  try {
    ({ sub } = await startSignUp(identity, { email, password, locale }));
  } catch (error) {
    return replyWithDomainError(submission, error, { hideFields: ["password"], extra: { intent: "credentials" } });
  }
  return withCookie(here, await saveSignUpFlow(config, { step: "code", email, sub }));
}

export default function SignUpPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("signUp");
  const lastResult = actionData && actionData.intent !== "credentials" ? actionData.result : undefined;
  return (
    <section className="content auth-page sign-up">
      <h1>{loaderData.step === "done" ? t("done.title") : t("title")}</h1>
      <SignUpSteps current={loaderData.step} />
      {loaderData.step === "credentials" ? (
        <CredentialsForm lastResult={actionData?.intent === "credentials" ? actionData.result : undefined} />
      ) : loaderData.step === "code" ? (
        <CodeForm email={loaderData.email ?? ""} lastResult={lastResult} />
      ) : loaderData.step === "account" ? (
        <AccountForm countries={loaderData.countries} lastResult={lastResult} />
      ) : (
        <Completed />
      )}
    </section>
  );
}

const STEPS = ["credentials", "code", "account", "done"] as const;

function SignUpSteps({ current }: { current: (typeof STEPS)[number] }) {
  const { t } = useTranslation("signUp");
  return (
    <ol className="steps" aria-label={t("steps.label")}>
      {STEPS.map((step) => (
        <li key={step} className="steps__item" aria-current={step === current ? "step" : undefined}>
          {t(`steps.${step}`)}
        </li>
      ))}
    </ol>
  );
}

function CredentialsForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const { t } = useTranslation("signUp");
  const { locale, links } = useRootData();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(SignUpSchema, lastResult, {
    validateInBrowser: false,
    secretFields: ["password"],
  });
  const agreements = [
    {
      field: fields.agreeIdTerms,
      label: t("credentials.agreeIdTerms"),
      href: pathFor("docs-terms-of-use-shinkenchiku-id", locale),
      link: t("credentials.idTermsLink"),
    },
    {
      field: fields.agreeDataTerms,
      label: t("credentials.agreeDataTerms"),
      href: links.dataTerms,
      link: t("credentials.dataTermsLink"),
    },
    {
      field: fields.agreePrivacy,
      label: t("credentials.agreePrivacy"),
      href: pathFor("docs-privacy-policy", locale),
      link: t("credentials.privacyLink"),
    },
  ];
  return (
    <>
      <p>{t("credentials.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("credentials.email")}
          errors={fields.email.errors}
          inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "email" }}
        />
        <InputField
          label={t("credentials.password")}
          hint={t("credentials.passwordHint")}
          errors={fields.password.errors}
          inputProps={{ ...getInputProps(fields.password, { type: "password" }), autoComplete: "new-password" }}
        />
        <fieldset className="form-fieldset">
          <legend>{t("credentials.agreementsLegend")}</legend>
          {agreements.map(({ field, label, href, link }) => (
            <CheckboxField
              key={field.name}
              label={label}
              errors={field.errors}
              inputProps={getInputProps(field, { type: "checkbox" })}
            >
              <a href={href} target="_blank" rel="noopener">
                {link}
              </a>
            </CheckboxField>
          ))}
        </fieldset>
        <Button name="intent" value="credentials" pending={navigation.state === "submitting"} block>
          {t("credentials.submit")}
        </Button>
      </Form>
    </>
  );
}

function CodeForm({ email, lastResult }: { email: string; lastResult: SubmissionResult<string[]> | undefined }) {
  const { t } = useTranslation("signUp");
  const [form, fields] = useSchemaForm(ConfirmationCodeSchema, lastResult, { validateInBrowser: false });
  return (
    <>
      <p>{t("code.lead", { email })}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("code.code")}
          errors={fields.code.errors}
          inputProps={{
            ...getInputProps(fields.code, { type: "text" }),
            inputMode: "numeric",
            autoComplete: "one-time-code",
          }}
        />
        <Button name="intent" value="code" block>
          {t("code.submit")}
        </Button>
      </Form>
      <Form method="post" className="actions">
        <Button name="intent" value="resend" variant="secondary" formNoValidate>
          {t("code.resend")}
        </Button>
        <Button name="intent" value="restart" variant="text" formNoValidate>
          {t("code.restart")}
        </Button>
      </Form>
    </>
  );
}

function AccountForm({
  countries,
  lastResult,
}: {
  countries: { value: string; label: string }[];
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("signUp");
  const [form, fields] = useSchemaForm(AccountInfoSchema, lastResult, {
    // The schema's default: without it no radio would start checked.
    defaultValue: { q1: "none" },
    validateInBrowser: false,
  });
  const otherDetail = (field: typeof fields.q2Other) => (
    <InputField
      label={t("account.otherDetail")}
      errors={field.errors}
      inputProps={getInputProps(field, { type: "text" })}
    />
  );
  return (
    <>
      <p>{t("account.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ProfileFields fields={fields} countries={countries} />
        <fieldset className="form-fieldset">
          <legend>{t("account.questionnaire")}</legend>
          <RadioGroupField
            legend={t("account.q1")}
            field={fields.q1}
            options={Q1_OPTIONS.map((value) => ({ value, label: t(`options.q1.${value}`) }))}
          />
          <CheckboxGroupField
            legend={t("account.q2")}
            field={fields.q2}
            options={Q2_OPTIONS.map((value) => ({ value, label: t(`options.q2.${value}`) }))}
          />
          {otherDetail(fields.q2Other)}
          <CheckboxGroupField
            legend={t("account.q3")}
            field={fields.q3}
            options={Q3_OPTIONS.map((value) => ({ value, label: t(`options.q3.${value}`) }))}
          />
          {otherDetail(fields.q3Other)}
        </fieldset>
        <Button name="intent" value="account" block>
          {t("account.submit")}
        </Button>
      </Form>
    </>
  );
}

function Completed() {
  const { t } = useTranslation("signUp");
  const { locale } = useRootData();
  return (
    <>
      <p>{t("done.lead")}</p>
      <p>
        <AppLink className="button button--primary" to={pathFor("auth-sign-in", locale)}>
          {t("done.signIn")}
        </AppLink>
      </p>
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
