import { ApiError } from "~/api/api-response.server";
import { apiRoute, deviceList, limitAttempts, requireRecentSignIn, withStatus } from "~/api/api-handler.server";
import { registerDevice } from "~/domain/sessions/device-registration.server";
import { endSessions } from "~/domain/sessions/session-ending.server";

/** Device keys are what our own sign-in puts in its cookie: random, URL-safe, at most 128 characters. */
const DEVICE_KEY = /^[A-Za-z0-9_-]{1,128}$/;

function deviceKeyOf(params: Readonly<Record<string, string | undefined>>): string {
  const key = params.id ?? "";
  if (!DEVICE_KEY.test(key)) throw new ApiError("validation_failed", { fields: { id: ["validation.inputError"] } });
  return key;
}

const api = apiRoute({
  POST: {
    operation: "registerUserDevice",
    handle: async (call) => {
      const { request, member, body, params, db, config } = call;
      const deviceKey = deviceKeyOf(params);
      // Claiming a device key for the member's sign-in: right after that sign-in, not with a token kept since.
      requireRecentSignIn(call);
      await limitAttempts(call, "deviceRegistration");
      const result = await registerDevice(call, {
        sub: member.sub,
        deviceKey,
        refreshToken: body.refreshToken,
        userAgent: request.headers.get("User-Agent"),
        clientIp: call.clientIp,
      });
      if (result.kind === "invalidRefreshToken") throw new ApiError("invalid_refresh_token");
      if (result.kind === "deviceLimit") {
        throw new ApiError("device_limit_exceeded", { devices: await deviceList(db, member, config) });
      }
      const devices = await deviceList(db, member, config);
      return result.created ? devices : withStatus(200, devices);
    },
  },
  DELETE: {
    operation: "deactivateUserDevice",
    handle: async (call) => {
      const { member, params, db, config, clientIp } = call;
      const ended = await endSessions(
        call,
        { sub: member.sub, device: { deviceKey: deviceKeyOf(params) } },
        { record: { kind: "device-deactivated", clientIp } },
      );
      // Another member's key finds nothing, exactly like a key that never existed.
      if (ended.length === 0) throw new ApiError("not_found");
      return deviceList(db, member, config);
    },
  },
});

export const loader = api.loader;
export const action = api.action;
