import { data, redirect, useLocation, useNavigation } from "react-router";
import { FORM_FIELD_TEXTS } from "~/forms/schema-form.server";
import { translateFieldErrors } from "~/forms/field-errors.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { AdminDashboard } from "~/components/admin/dashboard-charts";
import { formatDay, formatName } from "~/components/admin/formats";
import { AdminGetForm } from "~/components/admin/get-form";
import { PageLinks } from "~/components/admin/page-links";
import { InputField, SelectField } from "~/components/form/fields";
import { adminLabels } from "~/components/admin/admin-labels.server";
import { dashboardCharts } from "~/components/admin/dashboard-charts.server";
import { dashboardFigures } from "~/domain/staff/admin-dashboard.server";
import {
  DEFAULT_MEMBER_SORT,
  LEGACY_STATES,
  MEMBER_SORTS,
  MEMBER_STATUSES,
  type MemberSearchField,
  SERVICE_NAMES,
  countMembers,
  parseMemberSearch,
  searchMembers,
  searchParamsOf,
} from "~/domain/staff/member-search.server";
import { LOCALES } from "~/i18n/locales";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { withoutEmptyParams } from "~/routing/query-params";
import { pathFor } from "~/routing/route-table";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/admin";

/** A select's options from a list of values. */
function optionsOf<Value extends string>(values: readonly Value[], label: (value: Value) => string) {
  return values.map((value) => ({ value, label: label(value) }));
}

/**
 * The page's URL calls the language filter `language`: `?locale=` is the site's own language switch, which the
 * canonical-URL middleware turns into a redirect to that language's page (dropping the filter). The search
 * schema and the admin API keep `locale`.
 */
const PAGE_PARAM: Partial<Record<MemberSearchField, string>> = { locale: "language" };
const pageParamOf = (name: MemberSearchField) => PAGE_PARAM[name] ?? name;

/** The search query in a page URL's parameters, under the schema's names. */
function searchQueryOf(pageParams: URLSearchParams): URLSearchParams {
  const renamed = Object.fromEntries(Object.entries(PAGE_PARAM).map(([field, param]) => [param, field]));
  return new URLSearchParams([...pageParams].map(([name, value]) => [renamed[name] ?? name, value]));
}

/** The query string of a page link, under the page's names, "" for none. */
function pageQueryOf(searchParams: URLSearchParams): string {
  const params = new URLSearchParams(
    [...searchParams].map(([name, value]) => [pageParamOf(name as MemberSearchField), value]),
  );
  return params.size > 0 ? `?${params}` : "";
}

/**
 * The texts the search form, the member list and the charts' frames use; the charts' own texts and the field errors
 * come made.
 */
const OVERVIEW_TEXTS = [
  {
    namespace: "admin",
    keys: ["dashboard.title", "dashboard.showTable", "list", "statuses", "languages", "referrers"],
  },
  FORM_FIELD_TEXTS,
] as const;

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const shortUrl = withoutEmptyParams(url);
  if (shortUrl) throw redirect(shortUrl);
  const { db, clock, config } = servicesOf(context);
  const i18n = getInstance(context);
  const locale = getLocale(context);
  const t = i18n.getFixedT(locale, ["admin", "withdrawal"]);
  const labels = adminLabels(t);
  const given = searchQueryOf(url.searchParams);
  const search = parseMemberSearch(given);
  // Invalid parameters leave the list empty with a message by each field; the dashboard and the form still work.
  const [figures, page, count] = await Promise.all([
    dashboardFigures(db, clock.now(), { maxAgeMs: config.adminDashboardMaxAgeMs }),
    search.success ? searchMembers(db, search.query) : null,
    search.success ? countMembers(db, search.query) : null,
  ]);
  const pageLinks = search.success &&
    page && {
      previous: page.previousCursor
        ? pageQueryOf(searchParamsOf({ ...search.query, after: undefined, before: page.previousCursor }))
        : null,
      next: page.nextCursor
        ? pageQueryOf(searchParamsOf({ ...search.query, before: undefined, after: page.nextCursor }))
        : null,
    };
  return data(
    {
      title: i18n.t("admin:meta.dashboard"),
      charts: dashboardCharts(figures, t, locale),
      values: Object.fromEntries(given) as Partial<Record<MemberSearchField, string>>,
      fieldErrors: search.success ? {} : translateFieldErrors(context, search.fieldErrors),
      // The list's names and labels come made: the page sends what it shows, not every label's translation.
      members: (page?.members ?? []).map((member) => ({
        sub: member.sub,
        email: member.email,
        name: formatName(member.familyName, member.givenName),
        status: labels.status(member.status),
        language: labels.language(member.locale),
        referrer: labels.referrer(member.referrerService),
        signedUp: formatDay(member.signedUpAt, locale),
      })),
      count,
      pageLinks: pageLinks || null,
      // The form's choices come with the data: the component may not import the server-only search module.
      choices: {
        statuses: MEMBER_STATUSES,
        referrers: SERVICE_NAMES,
        legacyStates: LEGACY_STATES,
        sorts: MEMBER_SORTS,
        defaultSort: DEFAULT_MEMBER_SORT,
      },
      translations: loadTranslations(context, OVERVIEW_TEXTS),
    },
    { status: search.success ? 200 : 400 },
  );
}

/** The user list (the spec's /admin/): staff come to find a member, so the search opens the page, the figures follow. */
export default function AdminIndexPage({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <MemberSearchForm values={loaderData.values} fieldErrors={loaderData.fieldErrors} choices={loaderData.choices} />
      <MemberList loaderData={loaderData} />
      <AdminDashboard charts={loaderData.charts} />
    </>
  );
}

function MemberSearchForm({
  values,
  fieldErrors,
  choices,
}: {
  values: Partial<Record<MemberSearchField, string>>;
  fieldErrors: Partial<Record<MemberSearchField, string[]>>;
  choices: Route.ComponentProps["loaderData"]["choices"];
}) {
  const { t, i18n } = useTranslation("admin");
  const location = useLocation();
  const navigation = useNavigation();
  const field = (name: MemberSearchField) => ({
    name: pageParamOf(name),
    id: `member-search-${name}`,
    defaultValue: values[name] ?? "",
  });
  return (
    <section className="admin-section" aria-labelledby="member-search-title">
      <h2 id="member-search-title">{t("list.title")}</h2>
      {/* Keyed by the query: after a client-side search the fields show the URL's values, not the old ones. */}
      <AdminGetForm key={location.search} className="admin-filters" aria-label={t("list.searchLegend")}>
        {Object.keys(fieldErrors).length > 0 ? (
          <p role="alert" className="form-alert">
            {t("list.invalidSummary")}
          </p>
        ) : null}
        <InputField
          className="admin-filters__search"
          label={t("list.q")}
          hint={t("list.qHint")}
          errors={fieldErrors.q}
          inputProps={{ ...field("q"), type: "search" }}
        />
        <SelectField
          label={t("list.status")}
          errors={fieldErrors.status}
          selectProps={field("status")}
          placeholder={t("list.any")}
          options={optionsOf(choices.statuses, (status) => t(`statuses.${status}`))}
        />
        <SelectField
          label={t("list.language")}
          errors={fieldErrors.locale}
          selectProps={field("locale")}
          placeholder={t("list.any")}
          options={optionsOf(LOCALES, (locale) => t(`languages.${locale}`))}
        />
        <SelectField
          label={t("list.referrer")}
          errors={fieldErrors.referrer}
          selectProps={field("referrer")}
          placeholder={t("list.any")}
          options={optionsOf(choices.referrers, (service) => t(`referrers.${service}`))}
        />
        <InputField
          label={t("list.signedUpFrom")}
          errors={fieldErrors.signedUpFrom}
          inputProps={{ ...field("signedUpFrom"), type: "date" }}
        />
        <InputField
          label={t("list.signedUpTo")}
          errors={fieldErrors.signedUpTo}
          inputProps={{ ...field("signedUpTo"), type: "date" }}
        />
        <SelectField
          label={t("list.legacy")}
          errors={fieldErrors.legacy}
          selectProps={field("legacy")}
          placeholder={t("list.any")}
          options={optionsOf(choices.legacyStates, (state) => t(`list.legacyOptions.${state}`))}
        />
        <SelectField
          label={t("list.sort")}
          errors={fieldErrors.sort}
          selectProps={field("sort")}
          // The default sort is the empty choice, so a plain search leaves "sort" out of the URL.
          placeholder={t(`list.sorts.${choices.defaultSort}`)}
          options={optionsOf(
            choices.sorts.filter((sort) => sort !== choices.defaultSort),
            (sort) => t(`list.sorts.${sort}`),
          )}
        />
        {/* Paging and page size are links, not fields; a bad one is still reported here rather than silently lost. */}
        {[...(fieldErrors.after ?? []), ...(fieldErrors.before ?? []), ...(fieldErrors.limit ?? [])].length > 0 ? (
          <p className="form-field__error">{t("list.invalid")}</p>
        ) : null}
        <div className="admin-filters__actions">
          <Button pending={navigation.state === "loading" && navigation.location.pathname === location.pathname}>
            {t("list.submit")}
          </Button>
          <AppLink to={pathFor("admin", i18n.language)}>{t("list.reset")}</AppLink>
        </div>
      </AdminGetForm>
      <p>
        <AppLink to={pathFor("admin-users", i18n.language)}>{t("list.openMember")}</AppLink>
      </p>
    </section>
  );
}

/** The member list's column heads, by their keys under `list.columns`, in the order of each row's cells. */
const MEMBER_LIST_COLUMNS = ["email", "name", "status", "language", "referrer", "signedUp"] as const;

function MemberList({ loaderData }: { loaderData: Route.ComponentProps["loaderData"] }) {
  const { t, i18n } = useTranslation("admin");
  const { members, count, pageLinks } = loaderData;
  if (count === null) return null;
  const listPath = pathFor("admin", i18n.language);
  return (
    <section className="admin-section" aria-labelledby="member-list-count">
      <p id="member-list-count" className="admin-count" role="status">
        {t("list.count", { count: new Intl.NumberFormat(i18n.language).format(count) })}
      </p>
      {members.length === 0 ? (
        <p>{t("list.empty")}</p>
      ) : (
        <div className="admin-table-scroll">
          {/* Explicit roles: on a phone the rows are cards (admin.css), and Safari drops a table's own semantics
              when CSS changes its parts' display. */}
          <table className="admin-table admin-member-list" data-testid="member-list" role="table">
            <caption className="visually-hidden">{t("list.tableCaption")}</caption>
            <thead role="rowgroup">
              <tr role="row">
                {MEMBER_LIST_COLUMNS.map((column) => (
                  <th key={column} scope="col" role="columnheader">
                    {t(`list.columns.${column}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody role="rowgroup">
              {members.map((member) => (
                <tr key={member.sub} role="row">
                  <th scope="row" role="rowheader">
                    <AppLink to={pathFor("admin-user", i18n.language, { sub: member.sub })}>{member.email}</AppLink>
                  </th>
                  <td role="cell">{member.name}</td>
                  <td role="cell">{member.status}</td>
                  <td role="cell">{member.language}</td>
                  <td role="cell">{member.referrer}</td>
                  <td role="cell">{member.signedUp}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pageLinks ? (
        <PageLinks
          previous={
            pageLinks.previous === null ? null : { to: `${listPath}${pageLinks.previous}`, text: t("list.previous") }
          }
          next={pageLinks.next === null ? null : { to: `${listPath}${pageLinks.next}`, text: t("list.next") }}
        />
      ) : null}
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
