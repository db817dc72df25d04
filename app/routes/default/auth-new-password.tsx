import { type SubmissionResult, getFormProps } from "@conform-to/react";
import { Form, redirect, useNavigation } from "react-router";
import { handleFormPost, newPasswordErrorFields } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, ReadOnlyEmailField } from "~/components/form/fields";
import { NewPasswordField } from "~/components/form/new-password-field";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { newPasswordChallengeCookie } from "~/cookies/app-cookies.server";
import { FirstPasswordSchema } from "~/domain/forms/sign-in-schemas";
import { toDomainError } from "~/domain/domain-error.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-new-password";
import { readNewPasswordChallenge, redirectAfterSignIn, signInWithFirstPassword } from "./sign-in-flow.server";

/**
 * An invited member's first sign-in, second step (Cognito's NEW_PASSWORD_REQUIRED): the sign-in form sends them here
 * with the challenge in a short-lived cookie. Without one there is nothing to answer: back to sign in (`to` kept).
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const challenge = await readNewPasswordChallenge(servicesOf(context).config, request);
  if (!challenge) throw redirect(`${pathFor("auth-sign-in", getLocale(context))}${url.search}`);
  return {
    title: getInstance(context).t("auth:newPassword.title"),
    translations: loadTranslations(context, [{ namespace: "auth", keys: ["newPassword"] }, FORM_FIELD_TEXTS]),
    email: challenge.email,
    constraint: formConstraint(FirstPasswordSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const { config } = services;
  const locale = getLocale(context);
  const signInAgain = `${pathFor("auth-sign-in", locale)}${url.search}`;
  /** The challenge is gone or Cognito's session ran out: sign in again with the temporary password, told why. */
  const startOver = async () =>
    getToastUtils(context).redirectWithError(signInAgain, "newPasswordChallengeExpired", {
      headers: new Headers({ "Set-Cookie": await newPasswordChallengeCookie.clear(config) }),
    });

  const challenge = await readNewPasswordChallenge(config, request);
  if (!challenge) return startOver();
  return handleFormPost(
    context,
    await request.formData(),
    {
      schema: FirstPasswordSchema,
      hideFields: ["password"],
      // Each answer is a sign-in at Cognito: it counts as one, for the address and the client.
      attemptLimit: () => ({ action: "signIn" }),
      errorFields: newPasswordErrorFields("password"),
    },
    async ({ password }) => {
      try {
        const signedIn = await signInWithFirstPassword(context, request, { challenge, newPassword: password }, locale);
        return redirectAfterSignIn(context, { request, url }, { locale, config, ...signedIn });
      } catch (error) {
        // Not the form's message: the page has nothing left to answer.
        if (toDomainError(error)?.code === "challengeExpired") return startOver();
        throw error;
      }
    },
  );
}

export default function NewPasswordPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <NewPasswordForm email={loaderData.email} constraint={loaderData.constraint} lastResult={actionData?.result} />
  );
}

function NewPasswordForm({
  email,
  constraint,
  lastResult,
}: {
  email: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t, i18n } = useTranslation("auth");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof FirstPasswordSchema>(constraint, lastResult, {
    secretFields: ["password"],
  });
  return (
    <section className="content auth-page">
      <h1>{t("newPassword.title")}</h1>
      <p>{t("newPassword.lead")}</p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <ReadOnlyEmailField label={t("newPassword.email")} email={email} />
        <NewPasswordField label={t("newPassword.password")} field={fields.password} />
        <Button name="intent" value="choose-password" pending={navigation.state === "submitting"} block>
          {t("newPassword.submit")}
        </Button>
      </Form>
      <p>
        <AppLink to={pathFor("auth-sign-in", i18n.language)}>{t("newPassword.backToSignIn")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
