import { decodeJwt } from "jose";
import { DomainError } from "../domain-error.server";
import type { AppServices } from "~/services.server";
import { startSession } from "./device-admission.server";
import { describeDevice } from "./device-description.server";
import { apiDeviceKey } from "./device-keys.server";
import type { SessionDevice } from "./device-list.server";

export type DeviceRegistrationDependencies = Pick<AppServices, "db" | "identity" | "config" | "clock">;

export type DeviceRegistration =
  | { kind: "registered"; created: boolean }
  /** Over the limit: nothing was recorded; the member deactivates one of these and tries again. */
  | { kind: "deviceLimit"; devices: SessionDevice[] }
  /** The refresh token is not a live sign-in of this member (unknown, revoked, expired or someone else's). */
  | { kind: "invalidRefreshToken" };

/**
 * POST /api/user-devices/{id}: a sibling service records the sign-in of one of the member's browsers, so the
 * device counts towards the limit, shows on the devices page and can be deactivated (which revokes this refresh
 * token and refuses its access tokens). The refresh token is proven by using it once at Cognito: the answer
 * names its member (must be the caller's) and its sign-in (`origin_jti`). Registering the same sign-in for the
 * same device again changes nothing. The key is stored in the API's namespace (device-keys.server.ts): it is the
 * sibling's device, never a browser our pages know, so a page sign-in from a browser with the same key still alerts.
 */
export async function registerDevice(
  deps: DeviceRegistrationDependencies,
  input: { sub: string; deviceKey: string; refreshToken: string; userAgent: string | null; clientIp: string },
): Promise<DeviceRegistration> {
  let tokens;
  try {
    tokens = await deps.identity.refresh(input.refreshToken);
  } catch (error) {
    if (error instanceof DomainError && (error.code === "invalidCredentials" || error.code === "userNotFound")) {
      return { kind: "invalidRefreshToken" };
    }
    throw error;
  }
  // Straight from Cognito over TLS, so decoding is enough (as at sign-in).
  const access = decodeJwt(tokens.accessToken);
  const id = decodeJwt(tokens.idToken);
  if (access.sub !== input.sub) return { kind: "invalidRefreshToken" };
  const result = await startSession(deps, {
    sub: input.sub,
    email: typeof id.email === "string" ? id.email : "",
    deviceKey: apiDeviceKey(input.deviceKey),
    device: describeDevice(input.userAgent),
    refreshToken: input.refreshToken,
    originJti: typeof access.origin_jti === "string" ? access.origin_jti : null,
    issuedAt: new Date(Number(access.iat ?? 0) * 1000),
    overLimit: "refuse",
    clientIp: input.clientIp,
    passwordTyped: false,
  });
  if (result.kind === "deviceLimit") return { kind: "deviceLimit", devices: result.devices };
  return { kind: "registered", created: !result.reused };
}
