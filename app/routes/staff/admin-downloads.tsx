import { data } from "react-router";
import { z } from "zod";
import { translateFieldErrors } from "~/forms/field-errors.server";
import { FORM_FIELD_TEXTS } from "~/forms/schema-form.server";
import { Button } from "~/components/button";
import { InputField, SelectField } from "~/components/form/fields";
import {
  DEFAULT_EXPORT_LIMIT,
  EXPORT_KINDS,
  type ExportKind,
  MAX_EXPORT_LIMIT,
  isExportKind,
  parseExportQuery,
} from "~/domain/staff/export-params.server";
import { MAX_CONCURRENT_EXPORTS } from "~/domain/staff/member-export.server";
import { LEGACY_STATES, MAX_PAGE_SIZE, MEMBER_STATUSES, SERVICE_NAMES } from "~/domain/staff/member-search.server";
import { LOCALES } from "~/i18n/locales";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { DOWNLOAD_PAGE_PARAMS, exportParamsOfPage } from "~/routing/download-page-params.server";
import { pathFor } from "~/routing/route-table";
import type { Route } from "./+types/admin-downloads";

const FILE_OF: Record<ExportKind, string> = {
  users: "users.csv",
  "withdrawal-reasons": "withdrawal-reasons.csv",
  "email-addresses": "email-addresses.csv",
};

/**
 * The download forms' texts, with the member filters' labels the users.csv form shares with the member search (the
 * field errors come translated).
 */
const DOWNLOADS_TEXTS = [
  {
    namespace: "admin",
    keys: [
      "downloadsPage",
      "statuses",
      "languages",
      "referrers",
      ...["any", "invalidSummary", "q", "qHint", "status", "language", "referrer"].map((key) => `list.${key}`),
      ...["signedUpFrom", "signedUpTo", "legacy", "legacyOptions"].map((key) => `list.${key}`),
    ],
  },
  FORM_FIELD_TEXTS,
] as const;

/**
 * The staff's downloads: one plain GET form per file, submitted to its resource route (admin-download.ts), so the
 * browser downloads it with or without JavaScript. A download that comes back here (refused for its parameters or a
 * full house, or back from confirming the password and code for every member at once) has `form=<kind>`: that
 * form keeps what was typed and shows its field errors, if any.
 */
export function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const form = url.searchParams.get("form") ?? undefined;
  const returnedKind = isExportKind(form) ? form : null;
  const parsed = returnedKind ? parseExportQuery(returnedKind, exportParamsOfPage(url.searchParams)) : null;
  const fieldErrors = parsed && !parsed.success ? z.flattenError(parsed.error).fieldErrors : {};
  const busy = url.searchParams.get("busy") === "1";
  const limited = url.searchParams.get("limited") === "1";
  return data(
    {
      title: getInstance(context).t("admin:meta.downloads"),
      returnedKind,
      invalid: parsed?.success === false,
      values: returnedKind ? Object.fromEntries(exportParamsOfPage(url.searchParams)) : {},
      pageParams: DOWNLOAD_PAGE_PARAMS,
      fieldErrors: translateFieldErrors<string>(context, fieldErrors),
      busy,
      limited,
      // The component may not import server-only modules: the choices come with the data.
      choices: { kinds: EXPORT_KINDS, statuses: MEMBER_STATUSES, referrers: SERVICE_NAMES, legacy: LEGACY_STATES },
      limits: {
        defaultLimit: DEFAULT_EXPORT_LIMIT,
        maxLimit: MAX_EXPORT_LIMIT,
        listPageSize: MAX_PAGE_SIZE,
        concurrent: MAX_CONCURRENT_EXPORTS,
      },
      translations: loadTranslations(context, DOWNLOADS_TEXTS),
    },
    { status: busy || limited ? 429 : Object.keys(fieldErrors).length > 0 ? 400 : 200 },
  );
}

export default function DownloadsPage({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("admin");
  const { returnedKind, limits, choices } = loaderData;
  const locale = i18n.language === "en" ? "en" : "ja";
  /** A form's control: the id is the form's own; values and errors only for the form that came back. */
  const fieldOf = (kind: ExportKind, name: string, fallback: string | undefined = "") => {
    const mine = returnedKind === kind;
    return {
      errors: mine ? loaderData.fieldErrors[name] : undefined,
      props: {
        name: loaderData.pageParams[name] ?? name,
        id: `${kind}-${name}`,
        defaultValue: mine ? (loaderData.values[name] ?? fallback) : fallback,
      },
    };
  };
  const localeOptions = LOCALES.map((value) => ({ value, label: t(`languages.${value}`) }));
  /** A select; `placeholder: null` for one that always has a value, `required` for one that must be chosen. */
  const select = (
    kind: ExportKind,
    name: string,
    label: string,
    options: { value: string; label: string }[],
    choice: { fallback?: string; placeholder?: string | null; required?: boolean; hint?: string } = {},
  ) => {
    const field = fieldOf(kind, name, choice.fallback);
    return (
      <SelectField
        label={label}
        hint={choice.hint}
        errors={field.errors}
        selectProps={{ ...field.props, required: choice.required }}
        placeholder={choice.placeholder === null ? undefined : (choice.placeholder ?? t("list.any"))}
        options={options}
      />
    );
  };
  const input = (kind: ExportKind, name: string, label: string, extra: Record<string, unknown> = {}, hint?: string) => {
    const field = fieldOf(kind, name, typeof extra.defaultValue === "string" ? extra.defaultValue : "");
    return <InputField label={label} hint={hint} errors={field.errors} inputProps={{ ...extra, ...field.props }} />;
  };
  const formProps = (kind: ExportKind) => ({
    method: "get" as const,
    action: pathFor("admin-download", locale, { file: FILE_OF[kind] }),
    className: "admin-filters admin-filters--download",
    "aria-labelledby": `${kind}-title`,
  });
  return (
    <section className="admin-section" aria-labelledby="downloads-title">
      <h2 id="downloads-title">{t("downloadsPage.title")}</h2>
      <p>{t("downloadsPage.lead", { concurrent: String(limits.concurrent) })}</p>
      {loaderData.busy || loaderData.limited ? (
        <p role="alert" className="form-field__error">
          {t(loaderData.limited ? "downloadsPage.limited" : "downloadsPage.busy")}
        </p>
      ) : null}
      {choices.kinds.map((kind) => (
        <section key={kind} aria-labelledby={`${kind}-title`}>
          <h3 id={`${kind}-title`}>{t(`downloadsPage.${kind}.title`)}</h3>
          <p>
            {t(`downloadsPage.${kind}.description`, {
              defaultLimit: limits.defaultLimit.toLocaleString(locale),
              maxLimit: limits.maxLimit.toLocaleString(locale),
            })}
          </p>
          {returnedKind === kind && loaderData.invalid && !loaderData.busy && !loaderData.limited ? (
            <p role="alert" className="form-field__error">
              {t("list.invalidSummary")}
            </p>
          ) : null}
          {/* A plain form, not React Router's: the answer is a file for the browser to save, not a page. */}
          <form {...formProps(kind)}>
            {kind === "users" ? (
              <>
                {input(kind, "q", t("list.q"), {}, t("list.qHint"))}
                {select(
                  kind,
                  "status",
                  t("list.status"),
                  choices.statuses.map((value) => ({ value, label: t(`statuses.${value}`) })),
                )}
                {select(kind, "locale", t("list.language"), localeOptions)}
                {select(
                  kind,
                  "referrer",
                  t("list.referrer"),
                  choices.referrers.map((value) => ({ value, label: t(`referrers.${value}`) })),
                )}
                {input(kind, "signedUpFrom", t("list.signedUpFrom"), { type: "date" })}
                {input(kind, "signedUpTo", t("list.signedUpTo"), { type: "date" })}
                {select(
                  kind,
                  "legacy",
                  t("list.legacy"),
                  choices.legacy.map((value) => ({ value, label: t(`list.legacyOptions.${value}`) })),
                )}
                {input(kind, "page", t("downloadsPage.page"), { inputMode: "numeric", defaultValue: "0" })}
                {input(
                  kind,
                  "limit",
                  t("downloadsPage.limit"),
                  { inputMode: "numeric", defaultValue: String(limits.defaultLimit) },
                  t("downloadsPage.limitHint", { maxLimit: limits.maxLimit.toLocaleString(locale) }),
                )}
                {select(
                  kind,
                  "all",
                  t("downloadsPage.rows"),
                  [
                    { value: "0", label: t("downloadsPage.rowsPage") },
                    { value: "1", label: t("downloadsPage.rowsAll") },
                  ],
                  {
                    fallback: "0",
                    placeholder: null,
                    hint: t("downloadsPage.rowsHint", { pageSize: limits.listPageSize.toLocaleString(locale) }),
                  },
                )}
                {select(
                  kind,
                  "header",
                  t("downloadsPage.header"),
                  [
                    { value: "1", label: t("downloadsPage.headerOn") },
                    { value: "0", label: t("downloadsPage.headerOff") },
                  ],
                  { fallback: "1", placeholder: null },
                )}
              </>
            ) : kind === "withdrawal-reasons" ? (
              select(kind, "locale", t("downloadsPage.cancelledIn"), localeOptions)
            ) : (
              select(kind, "locale", t("downloadsPage.preferredLanguage"), localeOptions, {
                placeholder: t("downloadsPage.choose"),
                required: true,
              })
            )}
            {select(
              kind,
              "encoding",
              t("downloadsPage.encoding"),
              [
                { value: "utf-8", label: t("downloadsPage.encodings.utf-8") },
                { value: "shift_jis", label: t("downloadsPage.encodings.shift_jis") },
              ],
              { fallback: "utf-8", placeholder: null, hint: t("downloadsPage.encodingHint") },
            )}
            <div className="admin-filters__actions">
              <Button>{t(`downloadsPage.${kind}.submit`)}</Button>
            </div>
          </form>
        </section>
      ))}
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
