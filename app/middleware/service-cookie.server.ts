import type { Config } from "~/config.server";
import { serviceCookie } from "~/cookies/app-cookies.server";
import { recognizeService } from "~/domain/sessions/service-recognition.server";

/** The service whose look the page takes, and the Set-Cookie that remembers it when it changed. */
export async function resolveService(request: Request, config: Config) {
  const fromReferrer = recognizeService(request.headers.get("Referer"), config.origin, config.services);
  const rememberedService = await serviceCookie.read(config, request);
  // Our own pages ("id") keep whatever service brought the member; a sibling's referrer replaces it.
  const service = fromReferrer === null || fromReferrer === "id" ? rememberedService : fromReferrer;
  const setCookie =
    service !== rememberedService && service !== null && service !== "local"
      ? await serviceCookie.serialize(config, service)
      : null;
  return { service, setCookie };
}

/** The service that brought the member here (data, compe, online, shop), or null: recorded at sign-up. */
export async function referrerServiceOf(request: Request, config: Config): Promise<string | null> {
  const { service } = await resolveService(request, config);
  return service === null || service === "local" ? null : service;
}
