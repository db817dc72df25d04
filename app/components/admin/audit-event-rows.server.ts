import type { TFunction } from "i18next";
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

/** A value as staff read it: text as it is, anything else as JSON; a field the state did not have as a dash. */
function showValue(value: unknown): string {
  if (value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The fields an action changed, each with its value before and after; unchanged fields are left out. */
function changedFields(before: AuditState, after: AuditState) {
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  return names
    .map((name) => ({ name, before: showValue(before?.[name]), after: showValue(after?.[name]) }))
    .filter((field) => field.before !== field.after);
}

/**
 * The audit events as AuditEventTable shows them, their times, action labels and changes made here, so the pages send
 * what they show rather than every action's label and the formats. Actions are named like "user.refresh" and the
 * locales nest them the same way; an action the locales do not know shows as itself.
 */
export function describeAuditEvents(
  events: readonly StoredAuditEvent[],
  t: TFunction<"admin">,
  locale: string,
): AuditEventRow[] {
  return events.map((event) => ({
    id: event.id,
    at: formatDateTime(event.occurredAt, locale),
    actorEmail: event.actorEmail,
    action: t(`audit.actions.${event.action}` as never, { defaultValue: event.action }),
    targetSub: event.targetSub,
    changes: changedFields(event.before, event.after),
    requestId: event.requestId,
  }));
}
