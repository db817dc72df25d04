import { type SubmissionResult, getFormProps } from "@conform-to/react";
import { Form, useNavigation } from "react-router";
import { Button } from "~/components/button";
import { AuthenticatorCodeField } from "~/components/form/authenticator-code-field";
import { FormAlert } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import type { AuthenticatorCodeSchema } from "~/domain/forms/two-step-schemas";
import { useTranslation } from "~/i18n/use-translation";

/** What an authenticator set-up page shows of Cognito's secret (authenticator-setup-view.server.ts makes it). */
export interface AuthenticatorSetupView {
  qrSvg: string;
  key: string;
}

/**
 * The authenticator app's set-up: the QR code and the key (authenticatorSetupView), then the first code, posted as
 * `intent=confirm`; `intent=cancel` gives it up. Its texts are the account namespace's `twoStep` keys, which the
 * page's loader sends. The members' security page and the staff sign-in's first visit.
 */
export function AuthenticatorSetupForm({
  setup,
  constraint,
  lastResult,
}: {
  setup: AuthenticatorSetupView;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("account");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof AuthenticatorCodeSchema>(constraint, lastResult, {
    secretFields: ["code"],
  });
  return (
    <>
      <ol className="steps">
        <li>{t("twoStep.scan")}</li>
        <li>{t("twoStep.confirmLead")}</li>
      </ol>
      {/* Drawn on the server by the qrcode package from Cognito's secret: markup of our own making, no script. */}
      <div
        className="qr-code"
        role="img"
        aria-label={t("twoStep.qrLabel")}
        dangerouslySetInnerHTML={{ __html: setup.qrSvg }}
      />
      <p>{t("twoStep.keyLead")}</p>
      <p>
        <code className="authenticator-key" data-testid="authenticator-key">
          {setup.key}
        </code>
      </p>
      <Form method="post" {...getFormProps(form)} className="form">
        <FormAlert form={form} />
        <AuthenticatorCodeField label={t("twoStep.code")} field={fields.code} enterKeyHint="done" />
        <Button name="intent" value="confirm" pending={navigation.state === "submitting"} block>
          {t("twoStep.confirm")}
        </Button>
      </Form>
      <Form method="post" className="actions">
        <Button name="intent" value="cancel" variant="text">
          {t("twoStep.cancel")}
        </Button>
      </Form>
    </>
  );
}
