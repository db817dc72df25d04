import type { TFunction, i18n as I18n } from "i18next";
import { describeProfileValues, describeQuestionnaire } from "~/components/profile-values.server";
import { type Passkey, passkeyLabel } from "~/domain/account/passkeys.server";
import { PROFILE_FIELD_ORDER } from "~/domain/forms/form-choices";
import type { TwoStepStatus } from "~/domain/security/two-step-verification.server";
import type { MemberDetail, SessionEntry } from "~/domain/staff/member-detail.server";
import { adminLabels } from "./admin-labels.server";
import { formatDateTime } from "./formats";
import type { DetailFact, DetailSection } from "./member-detail-sections";

/** The member's second factors: 2-step verification with an authenticator app, and passkeys. */
export interface SecondFactors {
  twoStep: TwoStepStatus;
  passkeys: readonly Passkey[];
}

/**
 * The member's detail as MemberDetailSections shows it, every label and value made in the page's language here, so
 * the page sends the words it shows rather than the detail's translations, labels and formats. Codes read as the
 * pages that set them name them (the profile's as the profile page does), and nothing empty reads as a dash.
 */
export function describeMemberDetail(
  detail: MemberDetail,
  secondFactors: SecondFactors,
  i18n: I18n,
  locale: string,
): DetailSection[] {
  const t: TFunction<("admin" | "withdrawal" | "signUp" | "profile")[]> = i18n.getFixedT(locale, [
    "admin",
    "withdrawal",
    "signUp",
    "profile",
  ]);
  const labels = adminLabels(t as unknown as TFunction<("admin" | "withdrawal")[]>);
  const notSet = t("admin:notSet");
  const when = (value: Date | null, none = notSet) => (value ? formatDateTime(value, locale) : none);
  const yesNo = (value: boolean) => t(value ? "admin:yes" : "admin:no");
  const { directory, profile, sessions, emailChanges, cancellation, legacy } = detail;
  const profileValues = describeProfileValues(profile, i18n, locale);
  const { twoStep, passkeys } = secondFactors;
  const sessionState = (session: SessionEntry) =>
    t(
      session.live
        ? "admin:detail.sessionStates.live"
        : session.revokedAt
          ? "admin:detail.sessionStates.ended"
          : "admin:detail.sessionStates.held",
    );
  const fact = (label: string, value: string, more: Omit<DetailFact, "label" | "value"> = {}): DetailFact => ({
    label,
    value,
    ...more,
  });

  return [
    {
      id: "detail-cognito",
      title: t("admin:detail.cognito"),
      facts: [
        fact(t("admin:detail.sub"), detail.sub, { code: true }),
        ...(directory
          ? [
              fact(t("admin:detail.email"), directory.email, { testId: "member-email" }),
              fact(t("admin:detail.emailVerified"), yesNo(directory.emailVerified)),
              fact(t("admin:detail.status"), labels.status(directory.status), { testId: "member-status" }),
              fact(t("admin:detail.enabled"), yesNo(directory.enabled)),
              fact(
                t("admin:detail.cognitoStatus"),
                t(`admin:cognitoStatuses.${directory.cognitoStatus}` as never, {
                  defaultValue: directory.cognitoStatus,
                }),
              ),
              fact(t("admin:detail.groups"), directory.groups.join(", ") || t("admin:detail.noGroups")),
              fact(t("admin:detail.locale"), labels.language(directory.locale)),
              fact(t("admin:detail.createdAt"), when(directory.signedUpAt)),
              fact(t("admin:detail.updatedAt"), when(directory.cognitoUpdatedAt)),
              fact(t("admin:detail.syncedAt"), when(directory.syncedAt)),
              ...(directory.missingFromCognitoAt
                ? [fact(t("admin:detail.missingAt"), when(directory.missingFromCognitoAt))]
                : []),
            ]
          : []),
      ],
    },
    {
      id: "detail-profile",
      title: t("admin:detail.profile"),
      empty: t("admin:detail.noProfile"),
      facts: profile
        ? [
            ...PROFILE_FIELD_ORDER.map((field) =>
              fact(t(`signUp:account.${field}`), profileValues[field] === null ? notSet : String(profileValues[field])),
            ),
            fact(
              t("profile:newsletter.title"),
              t(profile.receivesNewsletter ? "profile:newsletter.receiving" : "profile:newsletter.notReceiving"),
            ),
            fact(t("admin:detail.referrer"), labels.referrer(profile.referrerService)),
            ...describeQuestionnaire(profile.questionnaire ?? null, i18n, locale).map((answer) =>
              fact(answer.label, answer.value),
            ),
          ]
        : [],
    },
    {
      id: "detail-second-factors",
      title: t("admin:detail.secondFactors"),
      facts: [
        fact(
          t("admin:detail.twoStep"),
          twoStep.enabled && twoStep.enabledAt
            ? t("admin:detail.twoStepOnSince", { since: formatDateTime(twoStep.enabledAt, locale) })
            : t("admin:detail.twoStepOff"),
          { testId: "member-two-step" },
        ),
        ...(twoStep.enabled
          ? [fact(t("admin:detail.recoveryCodesLeft"), twoStep.recoveryCodesLeft.toLocaleString(locale))]
          : []),
        fact(
          t("admin:detail.passkeys"),
          passkeys.length === 0
            ? t("admin:detail.noPasskeys")
            : t("admin:detail.passkeyCount", { count: passkeys.length }),
          { testId: "member-passkeys" },
        ),
        ...passkeys.map((passkey) =>
          fact(
            passkeyLabel(passkey),
            t("admin:detail.passkeyUse", {
              addedAt: formatDateTime(passkey.createdAt, locale),
              lastUsedAt: when(passkey.lastUsedAt, t("admin:detail.passkeyNeverUsed")),
            }),
          ),
        ),
      ],
    },
    {
      id: "detail-sessions",
      title: t("admin:detail.sessions"),
      empty: t("admin:detail.noSessions"),
      table: {
        testId: "member-sessions",
        rowHeaders: true,
        columns: [
          t("admin:detail.sessionColumns.device"),
          t("admin:detail.sessionColumns.browser"),
          t("admin:detail.sessionColumns.createdAt"),
          t("admin:detail.sessionColumns.lastSignInAt"),
          t("admin:detail.sessionColumns.state"),
        ],
        rows: sessions.map((session) => ({
          key: session.id,
          cells: [
            session.deviceName,
            session.browser,
            when(session.createdAt),
            when(session.lastLoginAt),
            sessionState(session),
          ],
        })),
      },
    },
    {
      id: "detail-email-history",
      title: t("admin:detail.emailHistory"),
      empty: t("admin:detail.noEmailHistory"),
      table: {
        rowHeaders: false,
        columns: [
          t("admin:detail.emailColumns.from"),
          t("admin:detail.emailColumns.to"),
          t("admin:detail.emailColumns.at"),
          t("admin:detail.emailColumns.state"),
        ],
        rows: emailChanges.map((change) => ({
          key: `${change.newEmail}-${change.requestedAt.toISOString()}`,
          cells: [
            change.oldEmail,
            change.newEmail,
            when(change.usedAt ?? change.requestedAt),
            t(`admin:detail.emailStates.${change.state}`),
          ],
        })),
      },
    },
    {
      id: "detail-cancellation",
      title: t("admin:detail.cancellation"),
      empty: t("admin:detail.notCancelled"),
      facts: cancellation
        ? [
            fact(t("admin:detail.reason"), labels.reason(cancellation.reason)),
            ...(cancellation.detail ? [fact(t("admin:detail.reasonDetail"), cancellation.detail)] : []),
            fact(t("admin:detail.cancelledAt"), when(cancellation.cancelledAt)),
          ]
        : [],
    },
    {
      id: "detail-legacy",
      title: t("admin:detail.legacy"),
      empty: t("admin:detail.notLegacy"),
      facts: legacy
        ? [
            fact(t("admin:detail.importedAt"), when(legacy.importedAt)),
            fact(t("admin:detail.migratedAt"), when(legacy.migratedAt)),
          ]
        : [],
    },
  ];
}
