import type { TFunction, i18n as I18n } from "i18next";
import type { AuditEventRow } from "./audit-event-table";
import { formatDateTime } from "./formats";

type AuditState = Readonly<Record<string, unknown>> | null;

/** One staff action as the audit log keeps it (app/domain/staff/staff-audit-log.server.ts). */
export interface StoredAuditEvent {
  id: number;
  occurredAt: Date | string;
  actorEmail: string;
  action: string;
  targetSub: string | null;
  before: AuditState;
  after: AuditState;
  requestId: string;
}

/** The namespaces the audit log's words come from: its own, and the tables of the pages that name the same things. */
const AUDIT_NAMESPACES = ["admin", "signUp", "csvImport", "adminEvents"] as const;
type AuditT = TFunction<typeof AUDIT_NAMESPACES>;

/**
 * Each field a staff action records, by the label the staff pages already give the same thing (the member list's
 * filters, the downloads page, the member page), or the audit log's own where no page names it.
 */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  q: "admin:list.q",
  status: "admin:list.status",
  locale: "admin:list.language",
  referrer: "admin:list.referrer",
  signedUpFrom: "admin:list.signedUpFrom",
  signedUpTo: "admin:list.signedUpTo",
  legacy: "admin:list.legacy",
  sort: "admin:list.sort",
  page: "admin:downloadsPage.page",
  limit: "admin:downloadsPage.limit",
  header: "admin:downloadsPage.header",
  encoding: "admin:downloadsPage.encoding",
  all: "admin:downloadsPage.rowsAll",
  email: "admin:detail.email",
  emailVerified: "admin:detail.emailVerified",
  enabled: "admin:detail.enabled",
  cognitoStatus: "admin:detail.cognitoStatus",
  groups: "admin:detail.groups",
  familyName: "signUp:account.familyName",
  givenName: "signUp:account.givenName",
  signedUpAt: "admin:detail.createdAt",
  missingFromCognitoAt: "admin:detail.missingAt",
};

/** Fields whose values are codes, by the table of labels the pages use for them. */
const VALUE_LABELS: Readonly<Record<string, (value: string) => string>> = {
  status: (value) => `admin:statuses.${value}`,
  locale: (value) => `admin:languages.${value}`,
  referrer: (value) => `admin:referrers.${value}`,
  sort: (value) => `admin:list.sorts.${value}`,
  legacy: (value) => `admin:list.legacyOptions.${value}`,
  encoding: (value) => `admin:downloadsPage.encodings.${value}`,
  export: (value) => `admin:downloadsPage.${value}.title`,
  state: (value) => `csvImport:states.${value}`,
  cognitoStatus: (value) => `admin:cognitoStatuses.${value}`,
  // The action a refusal names: the member page's own actions, as the log names them.
  action: (value) => `admin:audit.actions.user.${value}`,
  // The sibling services' deliveries (the deliveries page's words).
  service: (value) => `admin:referrers.${value}`,
  channel: (value) => `adminEvents:channels.${value}`,
  disabledReason: (value) => `adminEvents:reasons.${value}`,
};

/** A download's flags as the API and the downloads page's GET forms send them (export-params.server.ts). */
const FLAG_FIELDS = new Set(["header", "all"]);
const FLAG_ON = new Set(["1", "true", "on"]);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A field's name in the page's language. */
function labelOf(name: string, t: AuditT): string {
  return t((FIELD_LABELS[name] ?? `admin:audit.fields.${name}`) as never, { defaultValue: name });
}

/** A recorded value in words: codes by their labels, flags and booleans as yes or no, times in Japan time. */
function valueOf(name: string, value: unknown, t: AuditT, locale: string): string {
  if (value === undefined) return t("admin:audit.notRecorded");
  if (value === null) return t("admin:notSet");
  if (typeof value === "boolean") return t(value ? "admin:yes" : "admin:no");
  if (typeof value === "number") return value.toLocaleString(locale);
  if (Array.isArray(value)) {
    return value.length === 0 ? t("admin:audit.none") : value.map((item) => valueOf(name, item, t, locale)).join(", ");
  }
  if (typeof value === "object") {
    return Object.entries(value)
      .map(([inner, innerValue]) => `${labelOf(inner, t)}: ${valueOf(inner, innerValue, t, locale)}`)
      .join(locale === "ja" ? "、" : "; ");
  }
  const text = String(value);
  if (FLAG_FIELDS.has(name)) return t(FLAG_ON.has(text) ? "admin:yes" : "admin:no");
  if (ISO_TIME.test(text)) return formatDateTime(text, locale);
  const key = VALUE_LABELS[name]?.(text);
  return key ? t(key as never, { defaultValue: text }) : text;
}

/**
 * What an action changed, field by field in words: each field it changed with its value before and after, unchanged
 * fields left out; a field with no "before" (a download's settings, an import's counts, a refresh's finding) reads as
 * its value alone. `labelOf` names fields for another audience first (the member's data page).
 */
export function describeAuditChanges(
  before: AuditState,
  after: AuditState,
  t: AuditT,
  locale: string,
  labelFor: (name: string) => string | null = () => null,
): AuditEventRow["changes"] {
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return names
    .map((name) => ({
      name: labelFor(name) ?? labelOf(name, t),
      before: before && name in before ? valueOf(name, before[name], t, locale) : null,
      after: valueOf(name, after?.[name], t, locale),
    }))
    .filter((field) => field.before !== field.after);
}

/** The translator describeAuditChanges reads its words with, in the page's language. */
export function auditTranslator(i18n: I18n, locale: string): AuditT {
  return i18n.getFixedT(locale, AUDIT_NAMESPACES);
}

/** Fields by their labels, as a list in a sentence (a refresh's toast names what it changed). */
export function auditFieldLabels(names: readonly string[], i18n: I18n, locale: string): string {
  const t = auditTranslator(i18n, locale);
  return names.map((name) => labelOf(name, t)).join(locale === "ja" ? "、" : ", ");
}

/**
 * The audit events as AuditEventTable shows them, their times, action labels and changes made here, so the pages send
 * what they show rather than every action's label and the formats. Actions are named like "user.refresh" and the
 * locales nest them the same way; an action the locales do not know shows as itself.
 */
export function describeAuditEvents(events: readonly StoredAuditEvent[], i18n: I18n, locale: string): AuditEventRow[] {
  const t = auditTranslator(i18n, locale);
  return events.map((event) => ({
    id: event.id,
    at: formatDateTime(event.occurredAt, locale),
    actorEmail: event.actorEmail,
    action: t(`admin:audit.actions.${event.action}` as never, { defaultValue: event.action }),
    targetSub: event.targetSub,
    changes: describeAuditChanges(event.before, event.after, t, locale),
    requestId: event.requestId,
  }));
}
