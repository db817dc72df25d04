import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, data, redirect, useNavigation } from "react-router";
import { z } from "zod";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { useSchemaForm } from "~/components/form/use-schema-form";
import { EmailSchema } from "~/domain/auth-schemas";
import { EmailChangeError } from "~/domain/email-change.server";
import { IdentityError, httpStatusFor } from "~/integrations/cognito/cognito-errors.server";
import { MailUnavailableError } from "~/integrations/mailer.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { checkAttemptLimit } from "../auth/rate-limits.server";
import type { Route } from "./+types/email-edit";
import { requestMemberEmailChange } from "./email-edit.server";

const EmailChangeSchema = z.object({ email: EmailSchema });

export function loader({ request, context }: Route.LoaderArgs) {
  const member = getMember(context)!;
  const sent = new URL(request.url).searchParams.has("sent");
  return {
    title: getInstance(context).t(sent ? "emailChange:sent.title" : "emailChange:edit.title"),
    currentEmail: member.email,
    sent,
    translations: loadTranslations(context, ["emailChange", "forms", "toasts"]),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  // The member layout's guard has run: there is a member.
  const member = getMember(context)!;
  const locale = getLocale(context);
  const submission = parseWithZod(await request.formData(), { schema: EmailChangeSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  // Each request mails whatever address was typed and says whether it has an ID: counted like the API's.
  const limited = await checkAttemptLimit(context, "emailChange", member.sub);
  if (limited) return data({ result: submission.reply({ formErrors: [limited.formError] }) }, limited.init);
  try {
    await requestMemberEmailChange(member, submission.value.email, locale);
  } catch (error) {
    if (error instanceof EmailChangeError) {
      const message = error.code === "sameAddress" ? "emailChange:errors.sameAddress" : "toasts:emailUnavailable";
      return data({ result: submission.reply({ fieldErrors: { email: [message] } }) }, { status: 400 });
    }
    if (error instanceof MailUnavailableError) {
      return data({ result: submission.reply({ formErrors: ["emailChange:errors.mailUnavailable"] }) }, { status: 503 });
    }
    if (error instanceof IdentityError) {
      return data(
        { result: submission.reply({ formErrors: [`toasts:${error.messageKey}`] }) },
        { status: httpStatusFor(error) },
      );
    }
    throw error;
  }
  // The confirmation notice: a GET of this page, so reloading it sends nothing again.
  return redirect(`${pathFor("my-email-edit", locale)}?sent`);
}

export default function EmailEditPage({ loaderData, actionData }: Route.ComponentProps) {
  return loaderData.sent ? (
    <SentNotice />
  ) : (
    <EmailChangeForm currentEmail={loaderData.currentEmail} lastResult={actionData?.result} />
  );
}

function SentNotice() {
  const { t, i18n } = useTranslation("emailChange");
  return (
    <section className="content auth-page" data-testid="email-change-sent">
      <h1>{t("sent.title")}</h1>
      <p>{t("sent.body")}</p>
      <p>{t("sent.note")}</p>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("edit.back")}</AppLink>
      </p>
    </section>
  );
}

function EmailChangeForm({
  currentEmail,
  lastResult,
}: {
  currentEmail: string;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("emailChange");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(EmailChangeSchema, lastResult);
  return (
    <section className="content auth-page">
      <h1>{t("edit.title")}</h1>
      <p>{t("edit.lead")}</p>
      <dl>
        <dt>{t("edit.current")}</dt>
        <dd data-testid="current-email">{currentEmail}</dd>
      </dl>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("edit.newEmail")}
          errors={fields.email.errors}
          inputProps={{ ...getInputProps(fields.email, { type: "email" }), autoComplete: "email" }}
        />
        <Button pending={navigation.state === "submitting"} block>
          {t("edit.submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("edit.back")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
