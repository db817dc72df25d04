import { createCookie } from "react-router";
import { getConfig } from "~/config.server";
import { type RecognizedService, SERVICE_THEMES, recognizeService } from "~/domain/service-recognition.server";

/**
 * Remembers which service sent the member here for the rest of the browser session, so the header keeps that
 * service's look while the member moves between our own pages (their referrer is then our own origin).
 */
const serviceCookie = createCookie("service", { path: "/", sameSite: "lax", httpOnly: true });

export async function resolveService(request: Request, ownOrigin: string) {
  const config = getConfig();
  const fromReferrer = recognizeService(request.headers.get("Referer"), ownOrigin, config.services);
  const remembered: unknown = await serviceCookie.parse(request.headers.get("Cookie"));
  const rememberedService = (SERVICE_THEMES as readonly unknown[]).includes(remembered)
    ? (remembered as RecognizedService)
    : null;
  // Our own pages ("id") keep whatever service brought the member; a sibling's referrer replaces it.
  const service = fromReferrer === null || fromReferrer === "id" ? rememberedService : fromReferrer;
  const setCookie =
    service !== rememberedService && service !== null && service !== "local"
      ? await serviceCookie.serialize(service, { secure: config.secureCookies })
      : null;
  return { service, setCookie };
}

/** The service that brought the member here (data, compe, online, shop), or null: recorded at sign-up. */
export async function referrerServiceOf(request: Request): Promise<string | null> {
  const { service } = await resolveService(request, getConfig().origin);
  return service === null || service === "local" ? null : service;
}
