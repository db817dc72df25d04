import { type SubmissionResult, getFormProps } from "@conform-to/react";
import { Form, useNavigation } from "react-router";
import { handleFormPost, newPasswordErrorFields } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuthenticatorCodeField } from "~/components/form/authenticator-code-field";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { FormAlert } from "~/components/form/fields";
import { NewPasswordField } from "~/components/form/new-password-field";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { CODE_CHALLENGE_COOKIE_MAX_AGE_S, codeChallengeCookie, sessionCookie } from "~/cookies/app-cookies.server";
import { PasswordChangeSchema } from "~/domain/forms/password-schemas";
import { changePassword } from "~/domain/account/password-change.server";
import { twoStepStatusOf } from "~/domain/security/two-step-verification.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { getToastUtils } from "~/toast.server";
import { clientIpOf, servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-password-edit";

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  return {
    title: getInstance(context).t("account:passwordEdit.title"),
    // Our record alone says whether the member uses 2-step verification: a page view asks Cognito nothing.
    asksCode: (await twoStepStatusOf(servicesOf(context).db, member.sub)).enabled,
    translations: loadTranslations(context, [{ namespace: "account", keys: ["passwordEdit"] }, FORM_FIELD_TEXTS]),
    constraint: formConstraint(PasswordChangeSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  return handleFormPost(
    context,
    await request.formData(),
    {
      schema: PasswordChangeSchema,
      hideFields: ["currentPassword", "newPassword", "code"],
      // Guessing the current password is guessing the sign-in password: it counts with the sign-in attempts.
      signInLimit: () => ({ door: "member", email: member.email, request }),
      errorFields: {
        currentPasswordMismatch: "currentPassword",
        codeRequired: "code",
        authenticatorCodeMismatch: "code",
        secondStepPaused: "code",
        secondStepLocked: "code",
        ...newPasswordErrorFields("newPassword"),
      },
    },
    async (value) => {
      const services = servicesOf(context);
      // Every other sign-in of the member's is signed out; this browser keeps its session with the new sign-in.
      const changed = await changePassword(services, {
        sub: member.sub,
        email: member.email,
        sessionId: member.sessionId,
        familyName: member.familyName,
        givenName: member.givenName,
        ...value,
        clientIp: clientIpOf(context),
        locale,
      });
      if (changed.kind === "codeStep") {
        // This browser's sign-in with the new password waits for the app's next code at the sign-in's code step.
        const headers = new Headers();
        headers.append("Set-Cookie", await sessionCookie.clear(services.config));
        const { username, session } = changed;
        const expiresAt = Date.now() + CODE_CHALLENGE_COOKIE_MAX_AGE_S * 1000;
        const challenge = { email: member.email, username, session, expiresAt };
        headers.append("Set-Cookie", await codeChallengeCookie.serialize(services.config, challenge));
        const codeStep = `${pathFor("auth-two-step", locale)}?to=my-profile`;
        return getToastUtils(context).redirectWithSuccess(codeStep, "passwordChangedEnterNextCode", { headers });
      }
      const { accessToken } = changed;
      const headers = accessToken
        ? { "Set-Cookie": await sessionCookie.serialize(services.config, { sid: member.sessionId, at: accessToken }) }
        : undefined;
      return getToastUtils(context).redirectWithSuccess(pathFor("my-profile", locale), "passwordChanged", { headers });
    },
  );
}

export default function PasswordEditPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <PasswordChangeForm
      constraint={loaderData.constraint}
      asksCode={loaderData.asksCode}
      lastResult={actionData?.result}
    />
  );
}

function PasswordChangeForm({
  constraint,
  asksCode,
  lastResult,
}: {
  constraint: FormConstraint;
  asksCode: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("account");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof PasswordChangeSchema>(constraint, lastResult, {
    secretFields: ["currentPassword", "newPassword", "code"],
  });
  return (
    <section className="content auth-page">
      <h1>{t("passwordEdit.title")}</h1>
      <p>{t("passwordEdit.lead")}</p>
      <p data-testid="other-devices-notice">{t("passwordEdit.otherDevices")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <CurrentPasswordField
          label={t("passwordEdit.currentPassword")}
          field={fields.currentPassword}
          enterKeyHint="next"
        />
        <NewPasswordField
          label={t("passwordEdit.newPassword")}
          field={fields.newPassword}
          enterKeyHint={asksCode ? "next" : "done"}
        />
        {asksCode ? (
          <AuthenticatorCodeField
            label={t("passwordEdit.code")}
            hint={t("passwordEdit.codeWhy")}
            field={fields.code}
            enterKeyHint="done"
          />
        ) : null}
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
