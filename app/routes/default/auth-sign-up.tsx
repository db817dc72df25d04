import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, type RouterContextProvider, data, redirect, useNavigation } from "react-router";
import { handleFormPost, newPasswordErrorFields } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import {
  CheckboxField,
  CheckboxGroupField,
  FormAlert,
  InputField,
  RadioGroupField,
  RequiredMarker,
} from "~/components/form/fields";
import { NewPasswordField } from "~/components/form/new-password-field";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { ProfileFields } from "~/components/profile-fields";
import { useRootData } from "~/components/use-root-data";
import { withStoredPrefecture } from "~/domain/forms/profile-schemas";
import {
  AccountInfoFormSchema,
  CodeResendSchema,
  ConfirmationCodeSchema,
  SignUpSchema,
} from "~/domain/forms/sign-up-schemas";
import { Q1_OPTIONS, Q2_OPTIONS, Q3_OPTIONS } from "~/domain/forms/form-choices";
import { confirmSignUp, resendSignUpCode, saveAccountInfo, startSignUp } from "~/domain/account/sign-up.server";
import { recordSignUp } from "~/domain/security/security-record.server";
import { describeDevice } from "~/domain/sessions/device-description.server";
import { readOrCreateDeviceKey } from "~/cookies/app-cookies.server";
import { countryChoices } from "~/components/form/country-choices";
import { prefectureChoices } from "~/components/form/prefecture-choices";
import { type TranslationRequest, loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import type { Locale } from "~/i18n/locales";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { referrerServiceOf } from "~/middleware/service-cookie.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-sign-up";
import { type SignUpFlow, clearSignUpFlow, readSignUpFlow, saveSignUpFlow } from "./auth-sign-up.server";

/**
 * What the flow's current step shows, and only that: each step's texts, form constraints and (for the profile)
 * country list, since everything a loader sends is weighed with the page's JavaScript (tests/bench/README.md).
 */
function stepData(context: Readonly<RouterContextProvider>, locale: Locale, flow: SignUpFlow | null) {
  const texts = (keys: string[], more: TranslationRequest[] = []) =>
    loadTranslations(context, [{ namespace: "signUp", keys: ["title", "steps", ...keys] }, ...more]);
  switch (flow?.step ?? "credentials") {
    case "credentials":
      return {
        step: "credentials" as const,
        translations: texts(["credentials"], [FORM_FIELD_TEXTS]),
        constraint: formConstraint(SignUpSchema),
      };
    case "code":
      return {
        step: "code" as const,
        email: flow?.email ?? "",
        translations: texts(["code"], [FORM_FIELD_TEXTS]),
        constraint: formConstraint(ConfirmationCodeSchema),
      };
    case "account": {
      const t = getInstance(context).getFixedT(locale, "signUp");
      return {
        step: "account" as const,
        translations: texts(["account", "options"], [FORM_FIELD_TEXTS]),
        countries: countryChoices(locale, t("options.otherCountry")),
        prefectures: prefectureChoices(getInstance(context).getFixedT(locale, "prefectures")),
        constraint: formConstraint(AccountInfoFormSchema),
      };
    }
    case "done":
      return { step: "done" as const, translations: texts(["done"]) };
  }
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const locale = getLocale(context);
  // Signed in already: the sign-in page shows who, with Continue.
  if (getMember(context)) throw redirect(pathFor("auth-sign-in", locale));
  const flow = await readSignUpFlow(servicesOf(context).config, request);
  const t = getInstance(context).getFixedT(locale, "signUp");
  const view = stepData(context, locale, flow);
  return data(
    { title: t("title"), ...view },
    // The completed screen is shown once; the flow's cookie goes with it.
    view.step === "done" ? { headers: { "Set-Cookie": await clearSignUpFlow(servicesOf(context).config) } } : undefined,
  );
}

function withCookie(location: string, cookie: string) {
  return redirect(location, { headers: { "Set-Cookie": cookie } });
}

export async function action({ request, context }: Route.ActionArgs) {
  const locale = getLocale(context);
  const here = pathFor("auth-sign-up", locale);
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");
  const { db, identity, config, clock } = servicesOf(context);
  const flow = await readSignUpFlow(config, request);

  if (intent === "restart") return withCookie(here, await clearSignUpFlow(config));

  if (intent === "resend" && flow?.step === "code") {
    return handleFormPost(
      context,
      formData,
      {
        schema: CodeResendSchema,
        extra: { intent },
        attemptLimit: () => ({ action: "codeResend", subject: flow.email }),
      },
      async () => {
        await resendSignUpCode(identity, flow, locale);
        return getToastUtils(context).redirectWithSuccess(here, "codeResent");
      },
    );
  }

  if (intent === "code" && flow?.step === "code") {
    return handleFormPost(
      context,
      formData,
      {
        schema: ConfirmationCodeSchema,
        extra: { intent },
        attemptLimit: () => ({ action: "codeCheck", subject: flow.email }),
      },
      async ({ code }) => {
        await confirmSignUp(identity, { ...flow, code });
        // The browser that signed up is the member's own: its sign-up goes into the security record, so its
        // sign-ins never alert them.
        const device = await readOrCreateDeviceKey(config, request);
        await recordSignUp(db, {
          sub: flow.sub,
          email: flow.email,
          deviceKey: device.deviceKey,
          ...describeDevice(request.headers.get("User-Agent")),
          ipAddress: clientIpOf(context),
          occurredAt: clock.now(),
        });
        const headers = new Headers({ "Set-Cookie": await saveSignUpFlow(config, { ...flow, step: "account" }) });
        if (device.setCookie) headers.append("Set-Cookie", device.setCookie);
        return redirect(here, { headers });
      },
    );
  }

  if (intent === "account" && flow?.step === "account") {
    return handleFormPost(context, formData, { schema: AccountInfoFormSchema, extra: { intent } }, async (value) => {
      await saveAccountInfo(
        { db, identity },
        {
          sub: flow.sub,
          info: withStoredPrefecture(value),
          referrerService: await referrerServiceOf(request, config),
        },
      );
      return withCookie(here, await saveSignUpFlow(config, { ...flow, step: "done" }));
    });
  }

  return handleFormPost(
    context,
    formData,
    {
      schema: SignUpSchema,
      extra: { intent: "credentials" },
      hideFields: ["password"],
      attemptLimit: ({ email }) => ({ action: "signUp", subject: email }),
      errorFields: newPasswordErrorFields("password"),
    },
    async ({ email, password }) => {
      const { sub } = await startSignUp(identity, { email, password, locale });
      return withCookie(here, await saveSignUpFlow(config, { step: "code", email, sub }));
    },
  );
}

export default function SignUpPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("signUp");
  const lastResult = actionData && actionData.intent !== "credentials" ? actionData.result : undefined;
  return (
    <section className="content auth-page sign-up">
      <h1>{loaderData.step === "done" ? t("done.title") : t("title")}</h1>
      <SignUpSteps current={loaderData.step} />
      {loaderData.step === "credentials" ? (
        <CredentialsForm
          constraint={loaderData.constraint}
          lastResult={actionData?.intent === "credentials" ? actionData.result : undefined}
        />
      ) : loaderData.step === "code" ? (
        <CodeForm email={loaderData.email} constraint={loaderData.constraint} lastResult={lastResult} />
      ) : loaderData.step === "account" ? (
        <AccountForm
          countries={loaderData.countries}
          prefectures={loaderData.prefectures}
          constraint={loaderData.constraint}
          lastResult={lastResult}
        />
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

function CredentialsForm({
  constraint,
  lastResult,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("signUp");
  const { locale, links } = useRootData();
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof SignUpSchema>(constraint, lastResult, {
    secretFields: ["password"],
  });
  const agreements = [
    {
      field: fields.agreeIdTerms,
      href: pathFor("docs-terms-of-use-shinkenchiku-id", locale),
      document: t("credentials.idTermsLink"),
    },
    { field: fields.agreeDataTerms, href: links.dataTerms, document: t("credentials.dataTermsLink") },
    {
      field: fields.agreePrivacy,
      href: pathFor("docs-privacy-policy", locale),
      document: t("credentials.privacyLink"),
    },
  ];
  // The sentence around a document's name, which each language puts in its own place.
  const [agreeBefore, agreeAfter] = t("credentials.agreeTo").split("{{document}}");
  return (
    <>
      <p>{t("credentials.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("credentials.email")}
          errors={fields.email.errors}
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "email",
            inputMode: "email",
            enterKeyHint: "next",
          }}
        />
        <NewPasswordField label={t("credentials.password")} field={fields.password} enterKeyHint="send" />
        <fieldset className="form-fieldset">
          <legend>
            {t("credentials.agreementsLegend")}
            <RequiredMarker />
          </legend>
          {agreements.map(({ field, href, document }) => (
            <CheckboxField
              key={field.name}
              // The document's name is the link, once: "I agree to the [privacy policy]".
              label={
                <>
                  {agreeBefore}
                  <a href={href} target="_blank" rel="noopener">
                    {document}
                  </a>
                  {agreeAfter}
                </>
              }
              errors={field.errors}
              inputProps={getInputProps(field, { type: "checkbox" })}
            />
          ))}
        </fieldset>
        <Button name="intent" value="credentials" pending={navigation.state === "submitting"} block>
          {t("credentials.submit")}
        </Button>
      </Form>
      <p>
        {t("credentials.haveAccount")}{" "}
        <AppLink to={pathFor("auth-sign-in", locale)}>{t("credentials.signInLink")}</AppLink>
      </p>
    </>
  );
}

function CodeForm({
  email,
  constraint,
  lastResult,
}: {
  email: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("signUp");
  const [form, fields] = useSchemaForm<typeof ConfirmationCodeSchema>(constraint, lastResult);
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
            enterKeyHint: "done",
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
  prefectures,
  constraint,
  lastResult,
}: {
  countries: { value: string; label: string }[];
  prefectures: { value: string; label: string }[];
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("signUp");
  const [form, fields] = useSchemaForm<typeof AccountInfoFormSchema>(constraint, lastResult, {
    // The schema's default: without it no radio would start checked.
    defaultValue: { q1: "none" },
  });
  const otherDetail = (field: typeof fields.q2Other, enterKeyHint: "next" | "done") => (
    <InputField
      label={t("account.otherDetail")}
      errors={field.errors}
      inputProps={{ ...getInputProps(field, { type: "text" }), autoComplete: "off", inputMode: "text", enterKeyHint }}
    />
  );
  return (
    <>
      <p>{t("account.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ProfileFields fields={fields} countries={countries} prefectures={prefectures} moreFieldsFollow />
        <fieldset className="form-fieldset">
          <legend>{t("account.questionnaire")}</legend>
          <RadioGroupField
            legend={t("account.q1")}
            field={fields.q1}
            options={Q1_OPTIONS.map((value) => ({ value, label: t(`options.q1.${value}`) }))}
          />
          <CheckboxGroupField
            legend={t("account.q2")}
            required
            field={fields.q2}
            options={Q2_OPTIONS.map((value) => ({ value, label: t(`options.q2.${value}`) }))}
          />
          {otherDetail(fields.q2Other, "next")}
          <CheckboxGroupField
            legend={t("account.q3")}
            required
            field={fields.q3}
            options={Q3_OPTIONS.map((value) => ({ value, label: t(`options.q3.${value}`) }))}
          />
          {otherDetail(fields.q3Other, "done")}
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
