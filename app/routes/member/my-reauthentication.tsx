import { type SubmissionResult, getFormProps } from "@conform-to/react";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuthenticatorCodeField } from "~/components/form/authenticator-code-field";
import { CurrentPasswordField } from "~/components/form/current-password-field";
import { FormAlert } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { reauthenticate } from "~/domain/account/reauthentication.server";
import { ReauthenticationSchema } from "~/domain/forms/reauthentication-schema";
import { twoStepStatusOf } from "~/domain/security/two-step-verification.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { sameOriginPath } from "~/routing/return-target";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import type { Route } from "./+types/my-reauthentication";

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  return {
    title: getInstance(context).t("account:reauthentication.title"),
    // Our record alone says whether the member uses 2-step verification: a page view asks Cognito nothing.
    asksCode: (await twoStepStatusOf(servicesOf(context).db, member.sub)).enabled,
    translations: loadTranslations(context, [{ namespace: "account", keys: ["reauthentication"] }, FORM_FIELD_TEXTS]),
    constraint: formConstraint(ReauthenticationSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  // Only a path of ours: the step must not send the member to another site.
  const to = url.searchParams.get("to");
  const returnTo = (to && sameOriginPath(to)) || pathFor("my-profile", getLocale(context));
  return handleFormPost(
    context,
    await request.formData(),
    {
      schema: ReauthenticationSchema,
      hideFields: ["password", "code"],
      // Guessing this password is guessing the sign-in password: it counts with the sign-in attempts.
      signInLimit: () => ({ door: "member", email: member.email, request }),
      errorFields: {
        currentPasswordMismatch: "password",
        codeRequired: "code",
        authenticatorCodeMismatch: "code",
        secondStepPaused: "code",
        secondStepLocked: "code",
      },
    },
    async ({ password, code }) => {
      const services = servicesOf(context);
      await reauthenticate(services, {
        sub: member.sub,
        email: member.email,
        sessionId: member.sessionId,
        password,
        code,
        clientIp: clientIpOf(context),
        locale: getLocale(context),
      });
      return redirect(returnTo);
    },
  );
}

export default function ReauthenticationPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <ReauthenticationForm
      constraint={loaderData.constraint}
      asksCode={loaderData.asksCode}
      lastResult={actionData?.result}
    />
  );
}

function ReauthenticationForm({
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
  const [form, fields] = useSchemaForm<typeof ReauthenticationSchema>(constraint, lastResult, {
    secretFields: ["password", "code"],
  });
  return (
    <section className="content auth-page" data-testid="reauthentication">
      <h1>{t("reauthentication.title")}</h1>
      <p>{t(asksCode ? "reauthentication.leadWithCode" : "reauthentication.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <CurrentPasswordField
          label={t("reauthentication.password")}
          field={fields.password}
          enterKeyHint={asksCode ? "next" : "go"}
        />
        {asksCode ? (
          <AuthenticatorCodeField label={t("reauthentication.code")} field={fields.code} enterKeyHint="go" />
        ) : null}
        <Button pending={navigation.state === "submitting"} block>
          {t("reauthentication.submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("my-profile", i18n.language)}>{t("reauthentication.back")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
