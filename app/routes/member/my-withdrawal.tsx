import {
  type SubmissionResult,
  getFormProps,
  getInputProps,
  getSelectProps,
  getTextareaProps,
} from "@conform-to/react";
import { Form, data, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { sessionCookie } from "~/cookies/app-cookies.server";
import { Button } from "~/components/button";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { CheckboxField, FormAlert, SelectField, TextareaField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { WITHDRAWAL_REASONS } from "~/domain/forms/form-choices";
import {
  type WithdrawalAnswers,
  WithdrawalConfirmSchema,
  WithdrawalFormSchema,
} from "~/domain/forms/withdrawal-schemas";
import { cancelMembership } from "~/domain/account/withdrawal.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-withdrawal";

const HIDDEN = ["password"];

type ActionResult =
  | { step: "form"; result: SubmissionResult<string[]> }
  | { step: "confirm"; answers: WithdrawalAnswers; result?: SubmissionResult<string[]> };

export function loader({ context }: Route.LoaderArgs) {
  return {
    title: getInstance(context).t("withdrawal:title"),
    translations: loadTranslations(context, ["withdrawal", FORM_FIELD_TEXTS]),
    constraints: {
      reasons: formConstraint(WithdrawalFormSchema),
      confirm: formConstraint(WithdrawalConfirmSchema),
    },
  };
}

/**
 * Form, then confirmation, then submit with the disclaimer agreement and the password, all server-side so it works
 * without JavaScript: step 1's answers travel to step 2 in hidden fields and are validated again with the rest.
 */
export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  const formData = await request.formData();
  const intent = String(formData.get("intent") ?? "");

  // Step 1's answers first, on every post: step 2 carries them again.
  const reasons = { schema: WithdrawalFormSchema, extra: { step: "form" as const }, hideFields: HIDDEN };
  return handleFormPost(context, formData, reasons, async (answers, reply) => {
    if (intent === "back") return data<ActionResult>({ step: "form", result: reply() });
    if (intent !== "submit") return data<ActionResult>({ step: "confirm", answers });
    return handleFormPost(
      context,
      formData,
      {
        schema: WithdrawalConfirmSchema,
        extra: { step: "confirm" as const, answers },
        hideFields: HIDDEN,
        // Guessing the password here is guessing the sign-in password: it counts with the sign-in attempts.
        signInLimit: () => ({ door: "member", email: member.email, request }),
      },
      async ({ password, reason, detail }, reply, mark) => {
        const services = servicesOf(context);
        const outcome = await cancelMembership(services, {
          sub: member.sub,
          email: member.email,
          password,
          reason,
          detail,
          locale,
        });
        if (outcome.kind === "passwordMismatch") {
          mark.refused();
          const result = reply({ fieldErrors: { password: ["toasts:cancellationPasswordMismatch"] } });
          return data<ActionResult>({ step: "confirm", answers, result }, { status: 400 });
        }
        const headers = new Headers({ "Set-Cookie": await sessionCookie.clear(services.config) });
        return getToastUtils(context).redirectWithSuccess(pathFor("index", locale), "cancellationDone", { headers });
      },
    );
  });
}

export default function WithdrawalPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation("withdrawal");
  const confirming = actionData?.step === "confirm";
  return (
    <section className="content auth-page withdrawal">
      <h1>{confirming ? t("confirmTitle") : t("title")}</h1>
      {actionData?.step === "confirm" ? (
        <ConfirmForm
          answers={actionData.answers}
          constraint={loaderData.constraints.confirm}
          lastResult={actionData.result}
        />
      ) : (
        <ReasonForm constraint={loaderData.constraints.reasons} lastResult={actionData?.result} />
      )}
    </section>
  );
}

function Notices() {
  const { t } = useTranslation("withdrawal");
  return (
    <>
      <p>{t("lead")}</p>
      <ul className="withdrawal__notices" data-testid="withdrawal-notices">
        <li>{t("notices.paidPlan")}</li>
        <li>{t("notices.autoPayment")}</li>
        <li>{t("notices.dataRetention")}</li>
        <li>{t("notices.signUpAgain")}</li>
      </ul>
    </>
  );
}

function ReasonForm({
  constraint,
  lastResult,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("withdrawal");
  const navigation = useNavigation();
  // Validated on the server only, like sign-up: an unchecked checkbox is absent from the posted data.
  const [form, fields] = useSchemaForm<typeof WithdrawalFormSchema>(constraint, lastResult);
  return (
    <>
      <Notices />
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <SelectField
          label={t("reason")}
          errors={fields.reason.errors}
          placeholder={t("reasonPlaceholder")}
          selectProps={{ ...getSelectProps(fields.reason), autoComplete: "off" }}
          options={WITHDRAWAL_REASONS.map((value) => ({ value, label: t(`reasons.${value}`) }))}
        />
        <TextareaField
          label={t("detail")}
          hint={t("detailHint")}
          errors={fields.detail.errors}
          // Enter is a new line in the text; the keyboard says so.
          textareaProps={{
            ...getTextareaProps(fields.detail),
            rows: 4,
            autoComplete: "off",
            inputMode: "text",
            enterKeyHint: "enter",
          }}
        />
        <Button name="intent" value="confirm" pending={navigation.state === "submitting"} block>
          {t("next")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("cancel")}</AppLink>
      </p>
    </>
  );
}

function ConfirmForm({
  answers,
  constraint,
  lastResult,
}: {
  answers: WithdrawalAnswers;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("withdrawal");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof WithdrawalConfirmSchema>(constraint, lastResult, {
    secretFields: ["password"],
  });
  const hidden = (
    <>
      <input type="hidden" name="reason" value={answers.reason} />
      {answers.detail ? <input type="hidden" name="detail" value={answers.detail} /> : null}
    </>
  );
  return (
    <>
      <Notices />
      <p>{t("confirmLead")}</p>
      <dl className="withdrawal__summary" data-testid="withdrawal-summary">
        <dt>{t("summaryReason")}</dt>
        <dd>
          {t(`reasons.${answers.reason}`)}
          {answers.detail ? `: ${answers.detail}` : null}
        </dd>
      </dl>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        {hidden}
        <CheckboxField
          label={t("disclaimer")}
          errors={fields.agreeDisclaimer.errors}
          inputProps={getInputProps(fields.agreeDisclaimer, { type: "checkbox" })}
        />
        <CurrentPasswordField label={t("password")} field={fields.password} enterKeyHint="done" />
        <Button name="intent" value="submit" variant="danger" pending={navigation.state === "submitting"} block>
          {t("submit")}
        </Button>
      </Form>
      <Form method="post">
        {hidden}
        <Button name="intent" value="back" variant="text">
          {t("back")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("cancel")}</AppLink>
      </p>
    </>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
