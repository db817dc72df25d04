import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "../app-link";

/** One staff action as the table shows it, made by describeAuditEvents on the server. */
export interface AuditEventRow {
  id: number;
  at: string;
  actorEmail: string;
  /** The action's label in the page's language. */
  action: string;
  targetSub: string | null;
  /**
   * The fields the action changed, each by its label with its value before and after in words; `before` is null for an
   * action that set something up from nothing (a download's settings), which reads as the values alone.
   */
  changes: readonly { name: string; before: string | null; after: string }[];
  requestId: string;
}

/** The audit log's events, newest first: who did what to whom, when, what changed, and under which request. */
export function AuditEventTable({ events, caption }: { events: readonly AuditEventRow[]; caption: string }) {
  const { t, i18n } = useTranslation("admin");
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
            const { changes } = event;
            return (
              <tr key={event.id}>
                <td>{event.at}</td>
                <td>{event.actorEmail}</td>
                <th scope="row">{event.action}</th>
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
                          {change.before === null ? (
                            <dd>{change.after}</dd>
                          ) : (
                            <dd>
                              <span className="visually-hidden">{t("audit.before")}: </span>
                              <del>{change.before}</del> → <span className="visually-hidden">{t("audit.after")}: </span>
                              <ins>{change.after}</ins>
                            </dd>
                          )}
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
