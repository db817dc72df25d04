import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { readOrCreateDeviceKey, sessionCookie } from "~/cookies/app-cookies.server";

/**
 * The auth cookies' attributes come from the configuration:
 * behind https they are Secure with the `__Secure-` prefix, and COOKIE_DOMAIN shares them with the sibling services.
 */
const SECRET = "s".repeat(32);

/** The cookie helpers for a configuration parsed from this environment. */
async function cookiesWith(env: Record<string, string>) {
  const config = parseConfig(env);
  return {
    readSessionCookie: (request: Request) => sessionCookie.read(config, request),
    serializeSessionCookie: (value: { sid: string; at: string }) => sessionCookie.serialize(config, value),
    clearSessionCookie: () => sessionCookie.clear(config),
    readOrCreateDeviceKey: (request: Request) => readOrCreateDeviceKey(config, request),
  };
}

function attributesOf(setCookie: string) {
  const [pair = "", ...attributes] = setCookie.split(/;\s*/);
  return {
    name: pair.slice(0, pair.indexOf("=")),
    attributes: new Map(
      attributes.map((attribute) => {
        const [key = "", value = ""] = attribute.split("=");
        return [key.toLowerCase(), value] as const;
      }),
    ),
  };
}

test("behind https on a shared domain: __Secure-id_session, Secure, HttpOnly, SameSite=Lax, Domain, 30 days", async () => {
  const { serializeSessionCookie } = await cookiesWith({
    APP_ORIGIN: "https://id.example.jp",
    COOKIE_DOMAIN: ".example.jp",
    SESSION_SECRETS: SECRET,
  });
  const { name, attributes } = attributesOf(await serializeSessionCookie({ sid: "session-id", at: "access-token" }));
  expect(name).toBe("__Secure-id_session");
  expect(attributes.has("secure")).toBe(true);
  expect(attributes.has("httponly")).toBe(true);
  expect(attributes.get("samesite")).toBe("Lax");
  expect(attributes.get("domain")).toBe(".example.jp");
  expect(attributes.get("path")).toBe("/");
  expect(attributes.get("max-age")).toBe(String(30 * 24 * 60 * 60));
});

test("the session cookie round-trips, signed: a tampered value is not read", async () => {
  const { readSessionCookie, serializeSessionCookie } = await cookiesWith({
    APP_ORIGIN: "https://id.example.jp",
    COOKIE_DOMAIN: ".example.jp",
    SESSION_SECRETS: SECRET,
  });
  const pair = (await serializeSessionCookie({ sid: "session-id", at: "access-token" })).split(";")[0]!;
  const request = (cookie: string) => new Request("https://id.example.jp/", { headers: { Cookie: cookie } });
  expect(await readSessionCookie(request(pair))).toEqual({ sid: "session-id", at: "access-token" });

  const [name, value = ""] = pair.split("=");
  const forged = Buffer.from(JSON.stringify({ sid: "someone-else", at: "access-token" })).toString("base64");
  const signature = decodeURIComponent(value).slice(decodeURIComponent(value).lastIndexOf("."));
  expect(await readSessionCookie(request(`${name}=${encodeURIComponent(forged + signature)}`))).toBeNull();
});

test("the device and cleared cookies share the attributes; clearing keeps name and domain", async () => {
  const { clearSessionCookie, readOrCreateDeviceKey } = await cookiesWith({
    APP_ORIGIN: "https://id.example.jp",
    COOKIE_DOMAIN: ".example.jp",
    SESSION_SECRETS: SECRET,
  });
  const device = await readOrCreateDeviceKey(new Request("https://id.example.jp/"));
  const deviceCookie = attributesOf(device.setCookie ?? "");
  expect(deviceCookie.name).toBe("__Secure-id_device");
  expect(deviceCookie.attributes.has("secure")).toBe(true);
  expect(deviceCookie.attributes.has("httponly")).toBe(true);
  expect(deviceCookie.attributes.get("samesite")).toBe("Lax");
  expect(deviceCookie.attributes.get("domain")).toBe(".example.jp");
  expect(Number(deviceCookie.attributes.get("max-age"))).toBeGreaterThan(365 * 24 * 60 * 60);

  const cleared = attributesOf(await clearSessionCookie());
  expect(cleared.name).toBe("__Secure-id_session");
  expect(cleared.attributes.get("max-age")).toBe("0");
  expect(cleared.attributes.get("domain")).toBe(".example.jp");
  expect(cleared.attributes.has("secure")).toBe(true);
});

test("on plain-http local development: no Secure flag, no prefix, host-only", async () => {
  const { serializeSessionCookie } = await cookiesWith({
    APP_ORIGIN: "http://localhost:3000",
    COOKIE_DOMAIN: "",
    SESSION_SECRETS: SECRET,
  });
  const { name, attributes } = attributesOf(await serializeSessionCookie({ sid: "session-id", at: "access-token" }));
  expect(name).toBe("id_session");
  expect(attributes.has("secure")).toBe(false);
  expect(attributes.has("domain")).toBe(false);
  expect(attributes.has("httponly")).toBe(true);
  expect(attributes.get("samesite")).toBe("Lax");
});
