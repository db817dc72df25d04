import { getTableColumns, is } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { type ComponentType, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Outlet, RouterProvider, createMemoryRouter } from "react-router";
import {
  COUNTRIES,
  CONFIRMED_STAFF_ACTIONS,
  OCCUPATIONS,
  Q1_OPTIONS,
  Q2_OPTIONS,
  Q3_OPTIONS,
  WITHDRAWAL_REASONS,
} from "~/domain/forms/form-choices";
import { AccountInfoFields } from "~/domain/forms/sign-up-schemas";
import { EXPORT_KINDS, MemberExportParams } from "~/domain/staff/export-params.server";
import { LEGACY_STATES, MEMBER_SORTS, MEMBER_STATUSES, SERVICE_NAMES } from "~/domain/staff/member-search.server";
import { CSV_ENCODINGS } from "~/domain/staff/spreadsheet-csv.server";
import { STAFF_ACTIONS } from "~/domain/staff/staff-audit-log.server";
import { LOCALES, type Locale } from "~/i18n/locales";
import { jaResources } from "~/i18n/resources";
import * as schema from "~db/schema";
import { SECURITY_EVENT_KINDS } from "~db/schema";

/**
 * Renders a route module's page with its loader's data, as the server renders it, and returns the texts a reader
 * gets: every text between tags (visually hidden ones included, which screen readers read), entities decoded.
 */
export function textsOfPage(Page: ComponentType<never>, loaderData: unknown, locale: Locale): string[] {
  const page = () => createElement(Page, { loaderData, actionData: undefined, params: {}, matches: [] } as never);
  const router = createMemoryRouter(
    [{ id: "root", path: "/", Component: Outlet, children: [{ id: "page", index: true, Component: page }] }],
    { hydrationData: { loaderData: { root: { locale, translations: {} }, page: loaderData } } },
  );
  const html = renderToStaticMarkup(createElement(RouterProvider, { router }));
  return html
    .split(/<[^>]*>/)
    .map((text) =>
      text
        .replaceAll("&lt;", "<")
        .replaceAll("&gt;", ">")
        .replaceAll("&quot;", '"')
        .replaceAll("&#x27;", "'")
        .replaceAll("&amp;", "&")
        .trim(),
    )
    .filter((text) => text !== "");
}

/** Every column's field name of every table (`db/schema`): the names the code stores values under. */
function columnNames(): string[] {
  return Object.values(schema).flatMap((value) => (is(value, PgTable) ? Object.keys(getTableColumns(value)) : []));
}

/**
 * The names and codes a page must never show a reader, taken from the code's own tables so that a new field or
 * choice is scanned for as soon as it exists: the tables' columns, the forms' and downloads' fields, every choice of
 * the forms, the member statuses, services, languages, security events, staff actions and Cognito's user statuses
 * (the keys of the table that names them), plus the field names of the copy or audit states at hand (`more`).
 */
export function rawKeys(more: Iterable<string> = []): Set<string> {
  return new Set([
    ...columnNames(),
    ...Object.keys(AccountInfoFields.shape),
    ...Object.keys(MemberExportParams.shape),
    ...OCCUPATIONS,
    ...COUNTRIES,
    ...Q1_OPTIONS,
    ...Q2_OPTIONS,
    ...Q3_OPTIONS,
    ...WITHDRAWAL_REASONS,
    ...CONFIRMED_STAFF_ACTIONS,
    ...STAFF_ACTIONS,
    ...SECURITY_EVENT_KINDS,
    ...MEMBER_STATUSES,
    ...SERVICE_NAMES,
    ...LOCALES,
    ...EXPORT_KINDS,
    ...MEMBER_SORTS,
    ...LEGACY_STATES,
    ...CSV_ENCODINGS,
    ...Object.keys(jaResources.admin.cognitoStatuses),
    ...more,
  ]);
}

/** A name that reads as code wherever it stands in a sentence: camelCase, a letter then a digit, a dot or underscore. */
const CODE_LIKE = /[a-z][A-Z]|[A-Za-z]\d|[._]/;
/** What a missing value or a developer's view leaks as. */
const ALWAYS_RAW = ["null", "undefined", "NaN", "[object Object]", "—"];

/**
 * The texts that show a raw name or code: a text that is one (a value shown as stored: "architect", "JP",
 * "CONFIRMED", a label left as its field name), a code-like name inside a sentence ("q2Other", "user.refresh"),
 * or one of `words` anywhere, ignoring case (developer words such as "Cognito").
 */
export function rawTextsIn(texts: readonly string[], keys: ReadonlySet<string>, words: readonly string[] = []) {
  const codeLike = new Set([...keys].filter((key) => CODE_LIKE.test(key)));
  return texts.filter((text) => {
    if (keys.has(text) || ALWAYS_RAW.includes(text)) return true;
    const tokens = text.split(/[^A-Za-z0-9_.]+/).map((token) => token.replace(/\.+$/, ""));
    if (tokens.some((token) => codeLike.has(token) || token === "null" || token === "undefined")) return true;
    return words.some((word) => text.toLowerCase().includes(word.toLowerCase()));
  });
}

/** Every key anywhere in a JSON value (a copy's field names, an audit state's). */
export function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
  }
  return [];
}
