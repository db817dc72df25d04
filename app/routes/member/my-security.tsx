import type { PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { Form } from "react-router";
import { formatDateTime } from "~/components/admin/formats";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { PasskeySection } from "~/components/passkeys/passkey-section";
import { describeActivity } from "~/components/security-activity-rows.server";
import { nameDevice } from "~/components/device-rows.server";
import { SecurityActivityList } from "~/components/security-activity-list";
import { listPasskeys, passkeyLabel } from "~/domain/account/passkeys.server";
import { MAX_PASSKEY_NAME_LENGTH } from "~/domain/forms/passkey-schemas";
import { findLastPasswordChange, listSecurityActivity } from "~/domain/security/security-activity.server";
import { FEW_RECOVERY_CODES, twoStepStatusOf } from "~/domain/security/two-step-verification.server";
import { endSessions } from "~/domain/sessions/session-ending.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireMember } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { clientIpOf, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/my-security";
import { isPasskeyIntent, passkeyAction } from "./my-security.server";

export async function loader({ url, context }: Route.LoaderArgs) {
  const member = requireMember(context, url);
  const { db, clock } = servicesOf(context);
  const locale = getLocale(context);
  const i18n = getInstance(context);
  const cursor = url.searchParams.get("cursor");
  const [page, twoStep, passkeys, passwordChangedAt] = await Promise.all([
    listSecurityActivity(db, { sub: member.sub, currentSessionId: member.sessionId, cursor, now: clock.now() }),
    twoStepStatusOf(db, member.sub),
    listPasskeys(db, member.sub),
    findLastPasswordChange(db, member.sub),
  ]);
  return {
    title: i18n.t("account:security.title"),
    translations: loadTranslations(context, [
      {
        namespace: "account",
        keys: [
          "security.title",
          "security.lead",
          "security.devicesLink",
          "security.notMeHelp",
          "security.signOutOthers",
          "security.signInHeading",
          "security.password",
          "security.passwordChangedAt",
          "security.passwordNoChange",
          "security.changePassword",
          "security.passkeys",
          "security.passkeyCount",
          "security.passkeyNone",
          "security.managePasskeys",
          "security.recoveryCodes",
          "security.recoveryCodesLeft",
          "security.activityHeading",
          "security.activityLead",
          "security.fromIp",
          "security.live",
          "security.notMe",
          "security.notMeLabel",
          "security.empty",
          "security.older",
          "security.newest",
          "devices.thisBrowser",
          "twoStep.status",
          "twoStep.statusOn",
          "twoStep.statusOff",
          "twoStep.fewCodes",
          "twoStep.manage",
        ],
      },
      { namespace: "passkeys", keys: ["section", "toasts.cancelled", "errors.refused"] },
    ]),
    passkeys: passkeys.map((passkey) => ({
      credentialId: passkey.credentialId,
      label: passkeyLabel(passkey),
      createdAt: passkey.createdAt.toISOString(),
      lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
    })),
    maxPasskeyNameLength: MAX_PASSKEY_NAME_LENGTH,
    passwordChangedAt: passwordChangedAt ? formatDateTime(passwordChangedAt, locale) : null,
    rows: describeActivity(page.entries, i18n, locale),
    olderCursor: page.olderCursor,
    isFirstPage: cursor === null,
    twoStep: {
      enabled: twoStep.enabled,
      recoveryCodesLeft: twoStep.recoveryCodesLeft,
      fewRecoveryCodes: twoStep.enabled && twoStep.recoveryCodesLeft <= FEW_RECOVERY_CODES,
    },
  };
}

/**
 * "This wasn't me" ends one of the member's other browsers' sessions at once (its refresh token revoked at Cognito)
 * and sends the member on to change the password; never this browser's, never another member's (the sub is part
 * of the match, so a foreign session id ends nothing). "Sign out all other devices" ends every session but this one.
 */
export async function action({ request, url, context }: Route.ActionArgs) {
  const member = requireMember(context, url);
  const locale = getLocale(context);
  const here = pathFor("my-security", locale);
  const formData = await request.formData();
  const intent = formData.get("intent");
  if (isPasskeyIntent(intent)) return passkeyAction(context, { request, url }, { member, formData, intent });
  const toasts = getToastUtils(context);
  const services = servicesOf(context);
  const clientIp = clientIpOf(context);
  if (intent === "sign-out-others") {
    await endSessions(
      services,
      { sub: member.sub, allBut: member.sessionId },
      { record: { kind: "other-sessions-ended", clientIp } },
    );
    return toasts.redirectWithSuccess(here, "otherSessionsEnded");
  }
  const [ended] =
    intent === "not-me"
      ? await endSessions(
          services,
          {
            sub: member.sub,
            device: { sessionId: String(formData.get("device") ?? "") },
            exceptSessionId: member.sessionId,
          },
          { record: { kind: "session-reported", clientIp } },
        )
      : [];
  return ended
    ? toasts.redirectWithSuccess(pathFor("my-password-edit", locale), {
        message: "sessionReported",
        values: { device: nameDevice(getInstance(context).getFixedT(locale, "auth"), ended) },
      })
    : toasts.redirectWithError(here, "deviceDeactivateFailed");
}

export default function SecurityPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("account");
  const { rows, olderCursor, isFirstPage, twoStep, passkeys, maxPasskeyNameLength, passwordChangedAt } = loaderData;
  const here = pathFor("my-security", i18n.language);
  return (
    <section className="content security-page">
      <h1>{t("security.title")}</h1>
      <p>{t("security.lead")}</p>
      <section aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">{t("security.signInHeading")}</h2>
        <dl className="sign-in-methods" data-testid="sign-in-methods">
          <div className="sign-in-methods__item">
            <dt>{t("security.password")}</dt>
            <dd>
              {passwordChangedAt
                ? t("security.passwordChangedAt", { when: passwordChangedAt })
                : t("security.passwordNoChange")}
            </dd>
            <dd>
              <AppLink to={pathFor("my-password-edit", i18n.language)}>{t("security.changePassword")}</AppLink>
            </dd>
          </div>
          <div className="sign-in-methods__item" data-testid="two-step-summary">
            <dt>{t("twoStep.status")}</dt>
            <dd>{twoStep.enabled ? t("twoStep.statusOn") : t("twoStep.statusOff")}</dd>
            <dd>
              <AppLink to={pathFor("my-security-authenticator", i18n.language)}>{t("twoStep.manage")}</AppLink>
            </dd>
          </div>
          {twoStep.enabled ? (
            <div className="sign-in-methods__item">
              <dt>{t("security.recoveryCodes")}</dt>
              <dd>{t("security.recoveryCodesLeft", { count: twoStep.recoveryCodesLeft })}</dd>
              {twoStep.fewRecoveryCodes ? <dd className="notice">{t("twoStep.fewCodes")}</dd> : null}
            </div>
          ) : null}
          <div className="sign-in-methods__item">
            <dt>{t("security.passkeys")}</dt>
            <dd>
              {passkeys.length > 0 ? t("security.passkeyCount", { count: passkeys.length }) : t("security.passkeyNone")}
            </dd>
            <dd>
              <a href="#passkeys-title">{t("security.managePasskeys")}</a>
            </dd>
          </div>
        </dl>
      </section>
      <PasskeySection
        passkeys={passkeys}
        // The options as Cognito sent them; React Router's serialized type only loosens WebAuthn's.
        creationOptions={actionData?.passkeyCreationOptions as PublicKeyCredentialCreationOptionsJSON | undefined}
        maxNameLength={maxPasskeyNameLength}
      />
      <section aria-labelledby="activity-heading">
        <h2 id="activity-heading">{t("security.activityHeading")}</h2>
        <p>{t("security.activityLead")}</p>
        <p>{t("security.notMeHelp")}</p>
        {rows.length > 0 ? <SecurityActivityList rows={rows} /> : <p>{t("security.empty")}</p>}
        <nav className="actions">
          {isFirstPage ? null : <AppLink to={here}>{t("security.newest")}</AppLink>}
          {olderCursor ? (
            <AppLink to={`${here}?cursor=${encodeURIComponent(olderCursor)}`} rel="next">
              {t("security.older")}
            </AppLink>
          ) : null}
        </nav>
        <Form method="post">
          <Button name="intent" value="sign-out-others" variant="secondary">
            {t("security.signOutOthers")}
          </Button>
        </Form>
        <p>
          <AppLink to={pathFor("my-devices", i18n.language)}>{t("security.devicesLink")}</AppLink>
        </p>
      </section>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
