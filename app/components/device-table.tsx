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

/** Signed-in browsers: device, browser, last login and an action per row (Deactivate). Texts: "auth" namespace. */
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
      <table className="device-table">
        <thead>
          <tr>
            <th scope="col">{t("deviceLimit.device")}</th>
            <th scope="col">{t("deviceLimit.browser")}</th>
            <th scope="col">{t("deviceLimit.lastLogin")}</th>
            <th scope="col">{t("deviceLimit.action")}</th>
          </tr>
        </thead>
        <tbody>
          {devices.map((device) => (
            <tr key={device.id}>
              <td>
                {device.deviceName}
                {device.current ? <span className="badge">{t("deviceLimit.current")}</span> : null}
              </td>
              <td>{device.browser}</td>
              <td>
                <time dateTime={device.lastLoginAt}>{dateFormat.format(new Date(device.lastLoginAt))}</time>
              </td>
              <td>{action(device)}</td>
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
