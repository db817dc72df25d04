import { useTranslation } from "~/i18n/use-translation";
import { SessionActionForm } from "./device-table";

/** One line of the security activity, made on the server (security-activity-rows.server.ts). */
export interface ActivityRow {
  id: string;
  /** ISO 8601: when it happened (a counted event's latest attempt). */
  at: string;
  /** The same time in Japan time, as the member reads it. */
  when: string;
  what: string;
  /** The device and browser in words ("Chrome 126 on Windows 10"), "Staff", or null when the record has neither. */
  device: string | null;
  ipAddress: string | null;
  /** A sign-in still signed in. */
  live: boolean;
  /** A sign-in of this browser. */
  current: boolean;
  /** The session "This wasn't me" ends: a live sign-in of another browser; null otherwise. */
  reportableSessionId: string | null;
}

/**
 * The member's recent activity, newest first, each row a sentence's worth: what, when, on which device and browser,
 * from which IP, with "This wasn't me" beside the sign-ins it can end. Only the parts the record knows are shown, so
 * no row has an empty field. Texts: "account".
 */
export function SecurityActivityList({ rows }: { rows: ActivityRow[] }) {
  const { t } = useTranslation("account");
  return (
    <ol className="activity-list">
      {rows.map((row) => (
        <li key={row.id} className="activity-list__item">
          <p className="activity-list__what">
            {row.what}
            {row.current ? <span className="badge">{t("devices.thisBrowser")}</span> : null}
            {row.live && !row.current ? <span className="badge">{t("security.live")}</span> : null}
          </p>
          <p className="activity-list__details">
            <time dateTime={row.at}>{row.when}</time>
            {row.device ? <span>{row.device}</span> : null}
            {row.ipAddress ? <span>{t("security.fromIp", { ip: row.ipAddress })}</span> : null}
          </p>
          {row.reportableSessionId ? (
            <SessionActionForm
              sessionId={row.reportableSessionId}
              intent="not-me"
              variant="danger"
              label={t("security.notMe")}
              ariaLabel={t("security.notMeLabel", { device: row.device ?? "", when: row.when })}
            />
          ) : null}
        </li>
      ))}
    </ol>
  );
}
