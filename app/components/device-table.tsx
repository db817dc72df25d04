import type { ReactNode } from "react";
import { Form } from "react-router";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "./button";

export interface DeviceRow {
  id: string;
  deviceName: string;
  browser: string;
  /** ISO 8601. */
  lastLoginAt: string;
  current: boolean;
}

/**
 * Signed-in browsers: device, browser, last login and an action per row (Deactivate). Texts: "auth" namespace.
 * On a phone each row is a card (auth.css); the cells' data-label names the column the hidden head row named, and
 * the explicit roles keep it a table for screen readers (some browsers drop table semantics under display: block).
 */
const COLUMN_KEYS = [
  "deviceLimit.device",
  "deviceLimit.browser",
  "deviceLimit.lastLogin",
  "deviceLimit.action",
] as const;

export function DeviceTable({ devices, action }: { devices: DeviceRow[]; action: (device: DeviceRow) => ReactNode }) {
  const { t, i18n } = useTranslation("auth");
  // A fixed zone keeps the server's and the browser's text identical (no hydration mismatch).
  const dateFormat = new Intl.DateTimeFormat(i18n.language, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "Asia/Tokyo",
  });
  return (
    <div className="table-scroll">
      <table className="device-table" role="table">
        <thead role="rowgroup">
          <tr role="row">
            {COLUMN_KEYS.map((key) => (
              <th key={key} scope="col" role="columnheader">
                {t(key)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {devices.map((device) => (
            <tr key={device.id} role="row">
              <td role="cell" className="device-table__device">
                {device.deviceName}
                {device.current ? <span className="badge">{t("deviceLimit.current")}</span> : null}
              </td>
              <td role="cell" className="device-table__browser" data-label={t("deviceLimit.browser")}>
                {device.browser}
              </td>
              <td role="cell" className="device-table__last-login" data-label={t("deviceLimit.lastLogin")}>
                <time dateTime={device.lastLoginAt}>{dateFormat.format(new Date(device.lastLoginAt))}</time>
              </td>
              <td role="cell" className="device-table__action">
                {action(device)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Deactivate button of one row: a plain form post, so it works without JavaScript. */
export function DeactivateDeviceForm({ device }: { device: DeviceRow }) {
  const { t } = useTranslation("auth");
  return (
    <Form method="post">
      <input type="hidden" name="device" value={device.id} />
      <Button
        name="intent"
        value="deactivate"
        variant="secondary"
        aria-label={t("deviceLimit.deactivateLabel", { device: device.deviceName, browser: device.browser })}
      >
        {t("deviceLimit.deactivate")}
      </Button>
    </Form>
  );
}
