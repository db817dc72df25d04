import Bowser from "bowser";

export interface DeviceDescription {
  /** Operating system or device, e.g. "iOS 17.4", "Windows 10". */
  deviceName: string;
  /** Browser and major version, e.g. "Safari 17". */
  browser: string;
}

/** How the device list names a browser, from its User-Agent; "Unknown" parts when it says nothing useful. */
export function describeDevice(userAgent: string | null): DeviceDescription {
  if (!userAgent) return { deviceName: "Unknown", browser: "Unknown" };
  const parsed = Bowser.parse(userAgent);
  const os = [parsed.os.name, parsed.os.versionName ?? parsed.os.version].filter(Boolean).join(" ");
  const major = parsed.browser.version?.split(".")[0];
  const browser = [parsed.browser.name, major].filter(Boolean).join(" ");
  return { deviceName: os || parsed.platform.type || "Unknown", browser: browser || "Unknown" };
}
