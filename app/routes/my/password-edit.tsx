import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, data, useNavigation } from "react-router";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { useSchemaForm } from "~/components/form/use-schema-form";
import { PasswordChangeSchema } from "~/domain/auth-schemas";
import { IdentityError, httpStatusFor } from "~/integrations/cognito/cognito-errors.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { getMember } from "~/middleware/member-session.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { checkAttemptLimit } from "../auth/rate-limits.server";
import type { Route } from "./+types/password-edit";
import { changeMemberPassword } from "./password-edit.server";

const HIDDEN = ["currentPassword", "newPassword"];

export function loader({ context }: Route.LoaderArgs) {
  return {
    title: getInstance(context).t("account:passwordEdit.title"),
    translations: loadTranslations(context, ["account", "forms", "toasts"]),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  // The member layout's guard has run: there is a member.
  const member = getMember(context)!;
  const locale = getLocale(context);
  const submission = parseWithZod(await request.formData(), { schema: PasswordChangeSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: HIDDEN }) }, { status: 400 });
  }
  // Guessing the current password is guessing the sign-in password: it counts with the sign-in attempts.
  const limited = await checkAttemptLimit(context, "signIn", member.email);
  if (limited) {
    return data({ result: submission.reply({ formErrors: [limited.formError], hideFields: HIDDEN }) }, limited.init);
  }
  let sessionCookie: string | null;
  try {
    sessionCookie = await changeMemberPassword(member, submission.value);
  } catch (error) {
    if (!(error instanceof IdentityError)) throw error;
    const message = `toasts:${error.messageKey}`;
    const errors: { formErrors?: string[]; fieldErrors?: Record<string, string[]> } =
      error.code === "currentPasswordMismatch"
        ? { fieldErrors: { currentPassword: [message] } }
        : error.code === "invalidPassword"
          ? { fieldErrors: { newPassword: [message] } }
          : { formErrors: [message] };
    return data({ result: submission.reply({ ...errors, hideFields: HIDDEN }) }, { status: httpStatusFor(error) });
  }
  const headers = sessionCookie ? { "Set-Cookie": sessionCookie } : undefined;
  return getToastUtils(context).redirectWithSuccess(pathFor("my-profile", locale), "passwordChanged", { headers });
}

export default function PasswordEditPage({ actionData }: Route.ComponentProps) {
  return <PasswordChangeForm lastResult={actionData?.result} />;
}

function PasswordChangeForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const { t, i18n } = useTranslation("account");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm(PasswordChangeSchema, lastResult, {
    secretFields: ["currentPassword", "newPassword"],
  });
  return (
    <section className="content auth-page">
      <h1>{t("passwordEdit.title")}</h1>
      <p>{t("passwordEdit.lead")}</p>
      <p data-testid="other-devices-notice">{t("passwordEdit.otherDevices")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <InputField
          label={t("passwordEdit.currentPassword")}
          errors={fields.currentPassword.errors}
          inputProps={{ ...getInputProps(fields.currentPassword, { type: "password" }), autoComplete: "current-password" }}
        />
        <InputField
          label={t("passwordEdit.newPassword")}
          hint={t("passwordEdit.newPasswordHint")}
          errors={fields.newPassword.errors}
          inputProps={{ ...getInputProps(fields.newPassword, { type: "password" }), autoComplete: "new-password" }}
        />
        <Button pending={navigation.state === "submitting"} block>
          {t("passwordEdit.submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("passwordEdit.back")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
