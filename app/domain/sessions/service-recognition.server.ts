import type { Config, ServiceTheme, SiblingService } from "~/config.server";

export type RecognizedService = ServiceTheme | "local";

/**
 * Which service sent the member here, from the Referer header: a configured sibling host list match, the same
 * origin ("id"), or a localhost page ("local", a sibling running in development). Unknown or absent: null.
 */
export function recognizeService(
  referrer: string | null,
  ownOrigin: string,
  services: Config["services"],
): RecognizedService | null {
  if (!referrer) return null;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return null;
  }
  if (url.origin === ownOrigin) return "id";
  const host = url.hostname.toLowerCase();
  for (const [name, service] of Object.entries(services) as [SiblingService, Config["services"][SiblingService]][]) {
    if (service.hosts.some((configured) => configured.toLowerCase() === host)) return name;
  }
  if (host === "localhost" || host === "127.0.0.1" || host === "[::1]") return "local";
  return null;
}

/** The theme to show: a sibling's own, else the account service's. */
export function themeForService(service: RecognizedService | null): ServiceTheme {
  return service === null || service === "local" ? "id" : service;
}
