import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "../app-link";
import { formatDateTime } from "./formats";
import { useAdminLabels } from "./use-admin-labels";

type AuditState = Readonly<Record<string, unknown>> | null;

/** One staff action as the audit log keeps it (app/domain/staff/staff-audit-log.server.ts). */
export interface AuditEventRow {
  id: number;
  occurredAt: Date | string;
  actorSub: string;
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

/** The audit log's events, newest first: who did what to whom, when, what changed, and under which request. */
export function AuditEventTable({ events, caption }: { events: readonly AuditEventRow[]; caption: string }) {
  const { t, i18n } = useTranslation("admin");
  const labels = useAdminLabels();
  return (
    <div className="admin-table-scroll">
      <table className="admin-table" data-testid="audit-events">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{t("audit.columns.at")}</th>
            <th scope="col">{t("audit.columns.actor")}</th>
            <th scope="col">{t("audit.columns.action")}</th>
            <th scope="col">{t("audit.columns.target")}</th>
            <th scope="col">{t("audit.columns.change")}</th>
            <th scope="col">{t("audit.columns.requestId")}</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => {
            const changes = changedFields(event.before, event.after);
            return (
              <tr key={event.id}>
                <td>{formatDateTime(event.occurredAt, i18n.language)}</td>
                <td>{event.actorEmail}</td>
                <th scope="row">{labels.action(event.action)}</th>
                <td>
                  {event.targetSub ? (
                    <AppLink to={pathFor("admin-user", i18n.language, { sub: event.targetSub })}>
                      <code>{event.targetSub}</code>
                    </AppLink>
                  ) : null}
                </td>
                <td>
                  {changes.length === 0 ? (
                    t("audit.noChange")
                  ) : (
                    <dl className="admin-diff">
                      {changes.map((change) => (
                        <div key={change.name}>
                          <dt>{change.name}</dt>
                          <dd>
                            <span className="visually-hidden">{t("audit.before")}: </span>
                            <del>{change.before}</del> → <span className="visually-hidden">{t("audit.after")}: </span>
                            <ins>{change.after}</ins>
                          </dd>
                        </div>
                      ))}
                    </dl>
                  )}
                </td>
                <td>
                  <code>{event.requestId}</code>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
