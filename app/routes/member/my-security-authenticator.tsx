import { Form, data, redirect } from "react-router";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AuthenticatorSetupForm } from "~/components/authenticator-setup-form";
import { authenticatorSetupView } from "~/components/authenticator-setup-view.server";
import { RecoveryCodeList } from "~/components/recovery-code-list";
import { AUTHENTICATOR_SETUP_COOKIE_MAX_AGE_S, authenticatorSetupCookie } from "~/cookies/app-cookies.server";
import { AuthenticatorCodeSchema } from "~/domain/forms/two-step-schemas";
import { openAuthenticatorSetup, sealAuthenticatorSetup } from "~/domain/security/authenticator-setup.server";
import {
  FEW_RECOVERY_CODES,
  makeNewRecoveryCodes,
  startAuthenticatorSetup,
  turnOffTwoStep,
  turnOnTwoStep,
  twoStepStatusOf,
} from "~/domain/security/two-step-verification.server";
import { domainErrorOf, messageKeyOf } from "~/errors/error-responses.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { checkAttemptLimit } from "~/middleware/attempt-limit.server";
import { requireRecentPassword, requireServerToken } from "~/middleware/require-recent-password.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/my-security-authenticator";

/**
 * 2-step verification with an authenticator app, behind the password step: "Set up" asks Cognito for a secret
 * (AssociateSoftwareToken with the session's server token, a post: a page view never calls Cognito), which waits
 * sealed in a short-lived cookie while the page shows it as a QR code drawn here (SVG, no JavaScript) and as text;
 * the first code turns it on and shows the recovery codes once. Once on: how many recovery codes are left, "make new
 * codes" and "turn off". Setting up and turning off count against the member's limit for changes that call Cognito.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  await requireRecentPassword(context, url, member);
  const { db, config, clock } = servicesOf(context);
  const status = await twoStepStatusOf(db, member.sub);
  const sealed = status.enabled ? null : await authenticatorSetupCookie.read(config, request);
  const setup = sealed
    ? openAuthenticatorSetup(sealed, { secrets: config.sessionSecrets, sub: member.sub, now: clock.now().getTime() })
    : null;
  return {
    title: getInstance(context).t("account:twoStep.title"),
    translations: loadTranslations(context, [{ namespace: "account", keys: ["twoStep"] }, FORM_FIELD_TEXTS]),
    enabled: status.enabled,
    recoveryCodesLeft: status.recoveryCodesLeft,
    fewRecoveryCodes: status.enabled && status.recoveryCodesLeft <= FEW_RECOVERY_CODES,
    setup: setup
      ? await authenticatorSetupView({ origin: config.origin, email: member.email, secret: setup.secret })
      : null,
    constraint: formConstraint(AuthenticatorCodeSchema),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const services = servicesOf(context);
  const { config, clock } = services;
  const locale = getLocale(context);
  const here = pathFor("my-security-authenticator", locale);
  const toasts = getToastUtils(context);
  // Every change here needs a password typed recently on this session.
  await requireRecentPassword(context, url, member);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const clientIp = clientIpOf(context);
  const change = { sub: member.sub, email: member.email, clientIp, locale };
  if (intent === "start" || intent === "turn-off") {
    const limited = await checkAttemptLimit(context, { action: "twoStepChange", subject: member.sub });
    if (limited) return toasts.redirectWithError(here, limited.messageKey);
  }

  if (intent === "start") {
    const token = await requireServerToken(context, url, member);
    let secret: string;
    try {
      secret = await startAuthenticatorSetup(services, { token });
    } catch (error) {
      return toasts.redirectWithError(here, messageKeyOf(domainErrorOf(error)));
    }
    const expiresAt = clock.now().getTime() + AUTHENTICATOR_SETUP_COOKIE_MAX_AGE_S * 1000;
    const sealed = sealAuthenticatorSetup({ sub: member.sub, secret }, { secrets: config.sessionSecrets, expiresAt });
    throw redirect(here, { headers: { "Set-Cookie": await authenticatorSetupCookie.serialize(config, sealed) } });
  }
  if (intent === "cancel") {
    throw redirect(here, { headers: { "Set-Cookie": await authenticatorSetupCookie.clear(config) } });
  }
  if (intent === "new-codes") {
    const codes = await makeNewRecoveryCodes(services, { ...change, sessionId: member.sessionId });
    if (!codes) return toasts.redirectWithError(here, "twoStepNotOn");
    return { form: "codes" as const, codes };
  }
  if (intent === "turn-off") {
    let wasOn: boolean;
    try {
      wasOn = await turnOffTwoStep(services, { ...change, by: "member", sessionId: member.sessionId });
    } catch (error) {
      return toasts.redirectWithError(here, messageKeyOf(domainErrorOf(error)));
    }
    // A second "turn off" (another tab, a double submit) changed nothing: it says so rather than "turned off".
    if (!wasOn) return toasts.redirectWithError(pathFor("my-security", locale), "twoStepNotOn");
    return toasts.redirectWithSuccess(pathFor("my-security", locale), "twoStepDisabled");
  }

  const sealed = await authenticatorSetupCookie.read(config, request);
  const setup = sealed
    ? openAuthenticatorSetup(sealed, { secrets: config.sessionSecrets, sub: member.sub, now: clock.now().getTime() })
    : null;
  if (!setup) return toasts.redirectWithError(here, "authenticatorSetupExpired");
  const token = await requireServerToken(context, url, member);
  return handleFormPost(
    context,
    formData,
    {
      schema: AuthenticatorCodeSchema,
      extra: { form: "confirm" as const },
      hideFields: ["code"],
      // A wrong first code costs nothing but the member's time, yet it is a code check like any other.
      attemptLimit: () => ({ action: "codeCheck", subject: member.sub }),
      errorFields: { authenticatorCodeMismatch: "code" },
    },
    async ({ code }) => {
      const codes = await turnOnTwoStep(services, { ...change, token, sessionId: member.sessionId, code });
      return data(
        { form: "codes" as const, codes },
        { headers: { "Set-Cookie": await authenticatorSetupCookie.clear(config) } },
      );
    },
  );
}

export default function AuthenticatorPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("account");
  const securityPage = pathFor("my-security", i18n.language);
  if (actionData?.form === "codes") {
    return (
      <section className="content security-page">
        <h1>{t("twoStep.title")}</h1>
        <RecoveryCodeList codes={actionData.codes} />
        <p>
          <AppLink className="button button--primary" to={securityPage}>
            {t("twoStep.done")}
          </AppLink>
        </p>
      </section>
    );
  }
  const { enabled, recoveryCodesLeft, fewRecoveryCodes, setup, constraint } = loaderData;
  const lastResult = actionData?.form === "confirm" ? actionData.result : undefined;
  return (
    <section className="content security-page">
      <h1>{t("twoStep.title")}</h1>
      {enabled ? (
        <>
          <p data-testid="two-step-status">{t("twoStep.onLead")}</p>
          <p data-testid="recovery-codes-left">{t("twoStep.codesLeft", { count: recoveryCodesLeft })}</p>
          {fewRecoveryCodes ? <p className="notice">{t("twoStep.fewCodes")}</p> : null}
          <Form method="post" className="actions">
            <Button name="intent" value="new-codes" variant="secondary">
              {t("twoStep.newCodes")}
            </Button>
          </Form>
          <p>{t("twoStep.turnOffLead")}</p>
          <Form method="post" className="actions">
            <Button name="intent" value="turn-off" variant="danger">
              {t("twoStep.turnOff")}
            </Button>
          </Form>
        </>
      ) : setup ? (
        <AuthenticatorSetupForm setup={setup} constraint={constraint} lastResult={lastResult} />
      ) : (
        <>
          <p>{t("twoStep.offLead")}</p>
          <Form method="post" className="actions">
            <Button name="intent" value="start">
              {t("twoStep.start")}
            </Button>
          </Form>
        </>
      )}
      <p>
        <AppLink to={securityPage}>{t("twoStep.back")}</AppLink>
      </p>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
