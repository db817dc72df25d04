import type { TFunction } from "i18next";
import type { CsvColumnDoc } from "~/components/admin/csv-columns-table";
import type { ImportProblem } from "~/components/admin/import-error-table";
import { ProfileSchema } from "~/domain/forms/profile-schemas";
import { OCCUPATIONS } from "~/domain/forms/form-choices";
import {
  CSV_IMPORT_COLUMNS,
  CSV_IMPORT_MAX_FILE_BYTES,
  CSV_IMPORT_MAX_ROWS,
  type CsvImportColumn,
} from "~/domain/csv-import/csv-import-file.server";
import type { ImportDryRunReport } from "~/domain/csv-import/import-dry-run.server";
import { countryChoices } from "~/components/form/country-choices";
import type { Locale } from "~/i18n/locales";

type Translator = TFunction<("adminImport" | "signUp")[]>;

/** The profile form's label of each profile column: the page says what a column means in the form's own words. */
const PROFILE_LABEL_KEYS = {
  family_name: "signUp:account.familyName",
  given_name: "signUp:account.givenName",
  birth_year: "signUp:account.birthYear",
  country: "signUp:account.country",
  prefecture: "signUp:account.prefecture",
  occupation: "signUp:account.occupation",
  organization: "signUp:account.organization",
  preferred_language: "signUp:account.preferredLanguage",
} as const satisfies Record<Exclude<CsvImportColumn, "email">, string>;

const { shape } = ProfileSchema;

/**
 * The import's header documented in the page's language: each column's meaning and the values the dry run accepts,
 * with the profile form's codes and their labels (the same translations sign-up shows; country names from
 * Intl.DisplayNames, as sign-up's select has them). Lengths and years come from ProfileSchema itself, so the page
 * cannot state a rule the dry run does not apply.
 */
export function describeImportColumns(t: Translator, locale: Locale): CsvColumnDoc[] {
  const text = (max: number | null) => t("adminImport:upload.values.text", { max });
  const codeList = (codes: CsvColumnDoc["codes"]) => ({ values: t("adminImport:upload.values.codeList"), codes });
  const doc = (column: CsvImportColumn): Omit<CsvColumnDoc, "column" | "meaning"> => {
    switch (column) {
      case "email":
        return { values: t("adminImport:upload.values.email"), codes: [] };
      case "family_name":
      case "given_name":
      case "prefecture":
      case "organization":
        return { values: text(shape[PROFILE_KEYS[column]].maxLength), codes: [] };
      case "birth_year":
        return { values: t("adminImport:upload.values.birthYear", { thisYear: shape.birthYear.maxValue }), codes: [] };
      case "country":
        return codeList(
          countryChoices(locale, t("signUp:options.otherCountry")).map(({ value, label }) => ({ code: value, label })),
        );
      case "occupation":
        return codeList(OCCUPATIONS.map((code) => ({ code, label: t(`signUp:options.occupation.${code}`) })));
      case "preferred_language":
        return codeList((["ja", "en"] as const).map((code) => ({ code, label: t(`signUp:options.language.${code}`) })));
    }
  };
  return CSV_IMPORT_COLUMNS.map((column) => ({
    column,
    meaning: column === "email" ? t("adminImport:upload.meanings.email") : t(PROFILE_LABEL_KEYS[column]),
    ...doc(column),
  }));
}

/** The free-text columns' keys in ProfileSchema, whose maximum lengths the page states. */
const PROFILE_KEYS = {
  family_name: "familyName",
  given_name: "givenName",
  prefecture: "prefecture",
  organization: "organization",
} as const;

/** "5 MB" in the page's language: the file cap as staff read it. */
export function formatMegabytes(bytes: number, locale: Locale): string {
  return new Intl.NumberFormat(locale, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }).format(
    bytes / (1024 * 1024),
  );
}

/**
 * The dry run's report as the page shows it, every text in the request's language: made here, in the action's
 * reply, so the page sends none of the report's texts with every view.
 */
export function describeImportReport(report: ImportDryRunReport, t: TFunction<("adminImport" | "csvImport")[]>) {
  return {
    title: t("adminImport:report.errorsTitle"),
    summary: `${t("adminImport:report.errorsSummary", {
      file: report.fileName,
      rows: report.totalRows,
      count: report.problemCount,
    })} ${t("adminImport:report.fixAndRetry")}`,
    shown:
      report.problems.length < report.problemCount
        ? t("adminImport:report.errorsShown", { shown: report.problems.length })
        : null,
    table: {
      caption: t("adminImport:report.tableCaption"),
      row: t("adminImport:report.columns.row"),
      column: t("adminImport:report.columns.column"),
      problem: t("adminImport:report.columns.problem"),
      value: t("adminImport:report.columns.value"),
    },
    problems: report.problems.map((problem): ImportProblem => ({
      row: problem.row,
      column: problem.column,
      scope: t(problem.row === null ? "adminImport:report.wholeFile" : "adminImport:report.wholeRow"),
      message: t(`csvImport:problems.${problem.code}`, {
        otherRow: problem.otherRow ?? "",
        maxRows: CSV_IMPORT_MAX_ROWS,
        maxMegabytes: CSV_IMPORT_MAX_FILE_BYTES / (1024 * 1024),
      }),
      value: problem.value,
    })),
  };
}
