import { useTranslation } from "~/i18n/use-translation";
import { CardTable } from "./card-table";
import { DeviceName, SessionActionForm } from "./device-table";

/** One line of the security activity, made on the server (security-activity-rows.server.ts). */
export interface ActivityRow {
  id: string;
  /** ISO 8601. */
  at: string;
  /** The time in Japan time, as the member reads it. */
  when: string;
  what: string;
  deviceName: string;
  browser: string;
  ipAddress: string;
  /** A sign-in still signed in. */
  live: boolean;
  /** A sign-in of this browser. */
  current: boolean;
  /** The session "This wasn't me" ends: a live sign-in of another browser; null otherwise. */
  reportableSessionId: string | null;
}

/** The member's recent activity: when, what, device, browser, IP, and "This wasn't me". Texts: "account". */
export function SecurityActivityTable({ rows }: { rows: ActivityRow[] }) {
  const { t } = useTranslation("account");
  return (
    <CardTable
      className="activity-table"
      rows={rows}
      columns={[
        { area: "what", label: t("security.what"), cell: (row) => row.what },
        {
          area: "when",
          label: t("security.when"),
          labelled: true,
          cell: (row) => <time dateTime={row.at}>{row.when}</time>,
        },
        {
          area: "device",
          label: t("security.device"),
          labelled: true,
          cell: (row) => (
            <>
              <DeviceName deviceName={row.deviceName} current={row.current} />
              {row.live && !row.current ? <span className="badge">{t("security.live")}</span> : null}
            </>
          ),
        },
        { area: "browser", label: t("security.browser"), labelled: true, cell: (row) => row.browser },
        { area: "ip", label: t("security.ip"), labelled: true, cell: (row) => row.ipAddress },
        {
          area: "action",
          label: t("security.action"),
          cell: (row) =>
            row.reportableSessionId ? (
              <SessionActionForm
                sessionId={row.reportableSessionId}
                intent="not-me"
                variant="danger"
                label={t("security.notMe")}
                ariaLabel={t("security.notMeLabel", { device: row.deviceName, browser: row.browser })}
              />
            ) : null,
        },
      ]}
    />
  );
}
