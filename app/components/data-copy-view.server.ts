import type { TFunction, i18n as I18n } from "i18next";
import { adminLabels } from "~/components/admin/admin-labels.server";
import { auditTranslator, describeAuditChanges } from "~/components/admin/audit-event-rows.server";
import { formatDateTime } from "~/components/admin/formats";
import {
  type StoredProfileValues,
  describeProfileValues,
  describeQuestionnaire,
} from "~/components/profile-values.server";
import {
  type DataCopy,
  type DataCopySectionName,
  type JsonValue,
  STAFF_PSEUDONYM,
} from "~/domain/account/data-copy.server";
import { PROFILE_FIELD_ORDER } from "~/domain/forms/form-choices";
import { isLocale } from "~/i18n/locales";

/** One fact as the data page shows it: its label and value in words; `dateTime` marks a time (ISO 8601, UTC). */
export interface DataCopyFact {
  /** The copy's field the fact comes from: not shown, it ties the page to the file (and the tests to the page). */
  field: string;
  label: string;
  value: string;
  dateTime?: string;
}

/** One section of the page: a heading, and one group of facts (a record) or several (a list), or the empty text. */
export interface DataCopySectionView {
  name: DataCopySectionName | "member";
  title: string;
  list: boolean;
  groups: DataCopyFact[][];
  empty: string;
}

type Row = { [key: string]: JsonValue };

/** Fields of staff actions the staff pages name after the identity provider (Cognito), by this page's labels. */
const STAFF_CHANGE_LABELS: Readonly<Record<string, string>> = {
  cognitoStatus: "account:dataCopy.fields.status",
  missing: "account:dataCopy.fields.identityMissing",
  missingFromCognitoAt: "account:dataCopy.fields.identityMissingAt",
  signedUpAt: "account:dataCopy.fields.signedUpAt",
};
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const isRow = (value: JsonValue | undefined): value is Row =>
  value !== null && value !== undefined && typeof value === "object" && !Array.isArray(value);
const rowsOf = (value: JsonValue): Row[] => (Array.isArray(value) ? value.filter(isRow) : []);

/**
 * The member's copy (collectDataCopy) as the data page shows it: every section under its heading, every field by its
 * label and every value in words in the page's language, times in Japan time; the codes the file keeps for programs
 * (occupation, country, answers, states, event kinds, staff actions) read as the pages that set them name them.
 * Made on the server, so the page sends the words it shows and neither the labels' tables nor the formats.
 */
export function describeDataCopy(
  copy: DataCopy,
  i18n: I18n,
  locale: string,
  options: { adminGroup: string },
): DataCopySectionView[] {
  const t: TFunction<("account" | "admin" | "withdrawal" | "signUp" | "profile")[]> = i18n.getFixedT(locale, [
    "account",
    "admin",
    "withdrawal",
    "signUp",
    "profile",
  ]);
  const labels = adminLabels(t as unknown as TFunction<("admin" | "withdrawal")[]>);
  const separator = locale === "ja" ? "、" : ", ";
  const none = t("account:dataCopy.none");
  const language = (value: JsonValue) =>
    isLocale(value) ? t(`signUp:options.language.${value}`) : value === null ? none : String(value);

  /** A field's value in words; codes by the tables the other pages use, the rest by kind. */
  const valueOf = (field: string, value: JsonValue): Omit<DataCopyFact, "field" | "label"> => {
    if (typeof value === "string" && ISO_TIME.test(value))
      return { value: formatDateTime(value, locale), dateTime: value };
    switch (field) {
      case "source":
        return { value: t(`account:dataCopy.sources.${value === null ? "none" : String(value)}` as never) };
      case "status":
        return {
          value: t(`admin:cognitoStatuses.${String(value)}` as never, { defaultValue: String(value) }),
        };
      case "locale":
      case "language":
      case "preferredLanguage":
        return { value: language(value) };
      case "referrerService":
        return { value: labels.referrer(typeof value === "string" ? value : null) };
      case "groups":
        return {
          value:
            Array.isArray(value) && value.length > 0
              ? value
                  .map((group) => (group === options.adminGroup ? t("account:dataCopy.staffGroup") : String(group)))
                  .join(separator)
              : none,
        };
      case "kind":
        return {
          value:
            value === "sign-in-refused"
              ? t("account:dataCopy.refusedSignIn")
              : value === "second-step-failed"
                ? t("account:dataCopy.unfinishedSecondStep")
                : t(`account:security.events.${String(value)}` as never),
        };
      case "action":
        return {
          value: t(`account:security.staffActions.${String(value)}` as never, {
            defaultValue: t("account:security.staffActions.other"),
          }),
        };
      case "staff":
        return {
          value: t("account:dataCopy.staffPseudonym", {
            number: STAFF_PSEUDONYM.exec(String(value))?.[1] ?? String(value),
          }),
        };
      case "reason":
        return { value: labels.reason(String(value)) };
    }
    if (value === null) return { value: none };
    if (typeof value === "boolean") return { value: t(value ? "account:dataCopy.yes" : "account:dataCopy.no") };
    if (typeof value === "number") return { value: value.toLocaleString(locale) };
    if (Array.isArray(value)) {
      if (value.length === 0) return { value: t("account:dataCopy.empty") };
      return {
        value: value
          .map((item) =>
            typeof item === "string" && ISO_TIME.test(item) ? formatDateTime(item, locale) : String(item),
          )
          .join(separator),
      };
    }
    return { value: String(value) };
  };
  const fact = (field: string, value: JsonValue, label: string = t(`account:dataCopy.fields.${field}` as never)) => ({
    field,
    label,
    ...valueOf(field, value),
  });
  const factsOf = (row: Row) => Object.entries(row).map(([field, value]) => fact(field, value));

  /** The profile's fields as the profile page shows them, by its labels; only those the record holds. */
  const profileFacts = (profile: Row): DataCopyFact[] => {
    const shown = describeProfileValues(profile as StoredProfileValues, i18n, locale);
    return PROFILE_FIELD_ORDER.filter((field) => field in profile).map((field) => ({
      field,
      label: t(`signUp:account.${field}`),
      value: shown[field] === null ? none : String(shown[field]),
    }));
  };

  /** Each section's facts, by how its rows read. */
  const describeSection = (name: DataCopySectionName, value: JsonValue): DataCopyFact[][] => {
    switch (name) {
      case "profile": {
        if (!isRow(value)) return [];
        const { questionnaire, ...rest } = value;
        const answers = describeQuestionnaire(isRow(questionnaire) ? questionnaire : null, i18n, locale);
        return [
          [
            ...profileFacts(rest),
            ...(answers.length > 0
              ? answers.map((answer) => ({ field: "questionnaire", ...answer }))
              : [fact("questionnaire", null)]),
            ...Object.entries(rest)
              .filter(([field]) => !(PROFILE_FIELD_ORDER as readonly string[]).includes(field))
              .map(([field, inner]) => fact(field, inner)),
          ],
        ];
      }
      case "cancellation": {
        if (!isRow(value)) return [];
        const { reasons, ...rest } = value;
        return [
          [
            ...factsOf(rest),
            ...rowsOf(reasons ?? null).flatMap((reason) => [
              fact("reason", reason.reason ?? null),
              ...(reason.detail ? [fact("detail", reason.detail)] : []),
              fact("givenAt", reason.givenAt ?? null),
            ]),
          ],
        ];
      }
      case "legacyAccount": {
        if (!isRow(value)) return [];
        const { profile, ...rest } = value;
        return [[...factsOf(rest), ...(isRow(profile) ? profileFacts(profile) : [])]];
      }
      case "staffActions": {
        const audit = auditTranslator(i18n, locale);
        return rowsOf(value).map(({ before, after, ...rest }) => [
          ...factsOf(rest),
          ...describeAuditChanges(
            isRow(before) ? before : null,
            isRow(after) ? after : null,
            audit,
            locale,
            // The member's own words for what the staff page names by the identity provider.
            (field) => (field in STAFF_CHANGE_LABELS ? t(STAFF_CHANGE_LABELS[field] as never) : null),
          ).map((change) => ({
            field: "change",
            label: change.name,
            value: change.before === null ? change.after : `${change.before} → ${change.after}`,
          })),
        ]);
      }
      default:
        return Array.isArray(value) ? rowsOf(value).map(factsOf) : isRow(value) ? [factsOf(value)] : [];
    }
  };

  return [
    {
      name: "member",
      title: t("account:dataCopy.sections.member"),
      list: false,
      empty: none,
      groups: [
        [
          fact("sub", copy.member.sub, t("profile:subject")),
          fact("email", copy.member.email),
          fact("generatedAt", copy.generatedAt, t("account:dataCopy.generatedAt")),
        ],
      ],
    },
    ...(Object.entries(copy.sections) as [DataCopySectionName, JsonValue][]).map(([name, value]) => ({
      name,
      title: t(`account:dataCopy.sections.${name}`),
      list: Array.isArray(value),
      groups: describeSection(name, value),
      empty: t(Array.isArray(value) ? "account:dataCopy.empty" : "account:dataCopy.notHeld"),
    })),
  ];
}
