import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, data, redirect, useNavigation } from "react-router";
import { FORM_FIELD_TEXTS, formConstraint, parseSubmission } from "~/components/form/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { newPasswordChallengeCookie } from "~/cookies/app-cookies.server";
import { FirstPasswordSchema } from "~/domain/forms/auth-schemas";
import { domainErrorOf, replyWithDomainError } from "~/errors/error-responses.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/auth-new-password";
import { readNewPasswordChallenge, redirectAfterSignIn, signInWithFirstPassword } from "./sign-in-flow.server";

/**
 * An invited member's first sign-in, second step (Cognito's NEW_PASSWORD_REQUIRED): the sign-in form sends them here
 * with the challenge in a short-lived cookie. Without one there is nothing to answer: back to sign in (`to` kept).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const challenge = await readNewPasswordChallenge(servicesOf(context).config, request);
  if (!challenge) throw redirect(`${pathFor("auth-sign-in", getLocale(context))}${new URL(request.url).search}`);
  return {
    title: getInstance(context).t("auth:newPassword.title"),
    translations: loadTranslations(context, [{ namespace: "auth", keys: ["newPassword"] }, FORM_FIELD_TEXTS]),
    email: challenge.email,
    constraint: formConstraint(FirstPasswordSchema),
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = servicesOf(context);
  const { config } = services;
  const locale = getLocale(context);
  const signInAgain = `${pathFor("auth-sign-in", locale)}${new URL(request.url).search}`;
  /** The challenge is gone or Cognito's session ran out: sign in again with the temporary password, told why. */
  const startOver = async () =>
    getToastUtils(context).redirectWithError(signInAgain, "newPasswordChallengeExpired", {
      headers: new Headers({ "Set-Cookie": await newPasswordChallengeCookie.clear(config) }),
    });

  const challenge = await readNewPasswordChallenge(config, request);
  if (!challenge) return startOver();
  const submission = parseSubmission(context, await request.formData(), FirstPasswordSchema);
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400 });
  }
  // Each answer is a sign-in at Cognito: it counts as one, for the address and the client.
  const limited = await checkAttemptLimit(context, "signIn", challenge.email);
  if (limited) {
    return data(
      { result: submission.reply({ formErrors: [limited.formError], hideFields: ["password"] }) },
      limited.init,
    );
  }
  let signedIn: Awaited<ReturnType<typeof signInWithFirstPassword>>;
  try {
    signedIn = await signInWithFirstPassword(services, request, {
      challenge,
      newPassword: submission.value.password,
    });
  } catch (error) {
    if (domainErrorOf(error).code === "challengeExpired") return startOver();
    return replyWithDomainError(submission, error, {
      hideFields: ["password"],
      fields: { invalidPassword: "password" },
    });
  }
  return redirectAfterSignIn(context, request, { locale, config, ...signedIn });
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
        {/* Not submitted (the address comes from the cookie); shown, and there for password managers. */}
        <InputField
          label={t("newPassword.email")}
          inputProps={{
            id: "new-password-email",
            type: "email",
            value: email,
            readOnly: true,
            autoComplete: "username",
            inputMode: "email",
            enterKeyHint: "next",
          }}
        />
        <InputField
          label={t("newPassword.password")}
          hint={t("newPassword.passwordHint")}
          errors={fields.password.errors}
          inputProps={{
            ...getInputProps(fields.password, { type: "password" }),
            autoComplete: "new-password",
            inputMode: "text",
            enterKeyHint: "done",
          }}
        />
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
