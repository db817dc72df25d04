import type { TFunction } from "i18next";
import type { SessionDevice } from "~/domain/sessions/device-list.server";
import type { DeviceRow } from "./device-table";

/**
 * The devices as DeviceTable lists them: times as ISO 8601, and the IP each signed in from where `addresses` (by
 * session id) knows it.
 */
export function toDeviceRows(devices: readonly SessionDevice[], addresses: ReadonlyMap<string, string>): DeviceRow[] {
  return devices.map((device) => ({
    id: device.id,
    deviceName: device.deviceName,
    browser: device.browser,
    lastLoginAt: device.lastLoginAt.toISOString(),
    lastActiveAt: device.lastActiveAt?.toISOString() ?? null,
    ipAddress: addresses.get(device.id) ?? null,
    current: device.current,
  }));
}

/** A device as its row names it ("Chrome 126 on Windows 10"), for the toasts that name one. */
export function nameDevice(t: TFunction<"auth">, device: { deviceName: string; browser: string }): string {
  return t("deviceLimit.deviceBrowser", { device: device.deviceName, browser: device.browser });
}
