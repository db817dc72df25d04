import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { EmailChangeSchema } from "~/domain/forms/email-change-schema";
import { requestEmailChange } from "~/domain/account/email-change.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { keptFormFields, requireRecentPassword } from "~/middleware/require-recent-password.server";
import { keptFormCookie } from "~/cookies/app-cookies.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-email-edit";
import { emailUpdateLinkFor } from "~/routing/email-update-link";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  const sent = url.searchParams.has("sent");
  // Back from the password step: the address typed before it.
  const kept = sent ? null : await keptFormFields(context, { request, url }, member);
  return {
    title: getInstance(context).t(sent ? "emailChange:sent.title" : "emailChange:edit.title"),
    currentEmail: member.email,
    typedEmail: kept?.email ?? null,
    sent,
    translations: loadTranslations(context, [
      // The view's own texts. Not the mail texts (the server writes the mails), nor the errors (the action's reply
      // carries them translated).
      { namespace: "emailChange", keys: sent ? ["sent", "edit.back"] : ["edit"] },
      FORM_FIELD_TEXTS,
    ]),
    constraint: formConstraint(EmailChangeSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  const formData = await request.formData();
  // Changing the sign-in address takes the account over: the password must have been typed here recently.
  const typed = formData.get("email");
  await requireRecentPassword(context, url, member, {
    keep: typeof typed === "string" ? { email: typed.slice(0, 320) } : {},
  });
  return handleFormPost(
    context,
    formData,
    {
      schema: EmailChangeSchema,
      // Each request mails whatever address was typed and says whether it has an ID: counted like the API's.
      attemptLimit: () => ({ action: "emailChange", subject: member.sub }),
      // The address itself is what the member corrects: those two refusals sit on the field.
      errorFields: { sameAddress: "email", emailUnavailable: "email" },
    },
    async ({ email }) => {
      const { db, identity, mailer, config } = servicesOf(context);
      await requestEmailChange(
        { db, identity, mailer, mailTexts: getInstance(context), confirmationLink: emailUpdateLinkFor(config.origin) },
        { sub: member.sub, currentEmail: member.email, newEmail: email, locale },
      );
      // The confirmation notice: a GET of this page, so reloading it sends nothing again. The kept address is done.
      return redirect(`${pathFor("my-email-edit", locale)}?sent`, {
        headers: { "Set-Cookie": await keptFormCookie.clear(config) },
      });
    },
  );
}

export default function EmailEditPage({ loaderData, actionData }: Route.ComponentProps) {
  return loaderData.sent ? (
    <SentNotice />
  ) : (
    <EmailChangeForm
      currentEmail={loaderData.currentEmail}
      typedEmail={loaderData.typedEmail}
      constraint={loaderData.constraint}
      lastResult={actionData?.result}
    />
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
  typedEmail,
  constraint,
  lastResult,
}: {
  currentEmail: string;
  typedEmail: string | null;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("emailChange");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof EmailChangeSchema>(constraint, lastResult, {
    defaultValue: typedEmail ? { email: typedEmail } : undefined,
  });
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
          inputProps={{
            ...getInputProps(fields.email, { type: "email" }),
            autoComplete: "email",
            inputMode: "email",
            enterKeyHint: "send",
          }}
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
