import { afterAll, beforeAll, expect, test } from "vitest";
import jaAuth from "../../../locales/ja/auth.json";
import { cookieHeader } from "../../support/cookie-jar";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { postForm } from "../../support/session-http";
import { createTestMember } from "../../support/test-members";

/**
 * Pages that show what one browser's cookies hold are never stored by a shared cache or the browser's disk
 * cache: the three screens a signed-out browser sees with personal data on
 * them, requested over HTTP from the production build as a browser does (post, follow the redirect with the
 * cookies it set). DEVICE_LIMIT=1, so a second sign-in reaches the device-limit screen.
 */
let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "silent", DEVICE_LIMIT: "1" });
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

function post(path: string, fields: Record<string, string>) {
  return postForm(`${server.url}${path}`, fields);
}

/** Posts a form, then loads the page its redirect names with the cookies the post set: the next screen. */
async function nextScreen(path: string, fields: Record<string, string>) {
  const posted = await post(path, fields);
  expect(posted.status).toBe(302);
  const location = posted.headers.get("Location") ?? "";
  const page = await fetch(new URL(location, server.url), {
    redirect: "manual",
    headers: { "Accept-Language": "ja", Cookie: cookieHeader(posted) },
  });
  expect(page.status).toBe(200);
  return { page, html: await page.text() };
}

const address = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;

test("the device-limit screen of a sign-in is no-store", async () => {
  const member = await createTestMember(server.standInPort, "no-store-device");
  expect((await post("/auth/sign-in/", { intent: "sign-in", ...member })).status).toBe(302);
  const { page, html } = await nextScreen("/auth/sign-in/", { intent: "sign-in", ...member });
  expect(html).toContain(jaAuth.deviceLimit.title);
  expect(page.headers.get("Cache-Control")).toBe("no-store");
});

test("the sign-up code step, which shows the address, is no-store in both languages", async () => {
  for (const path of ["/auth/sign-up/", "/en/auth/sign-up/"]) {
    const email = address("no-store-sign-up");
    const { page, html } = await nextScreen(path, {
      email,
      password: "correct-horse-battery",
      agreeIdTerms: "on",
      agreeDataTerms: "on",
      agreePrivacy: "on",
    });
    expect(html).toContain(email);
    expect(page.headers.get("Cache-Control"), path).toBe("no-store");
  }
});

test("the password-reset confirm step, which shows the address, is no-store", async () => {
  const member = await createTestMember(server.standInPort, "no-store-reset");
  const { page, html } = await nextScreen("/auth/forgot-password/", { intent: "request", email: member.email });
  expect(html).toContain(member.email);
  expect(page.headers.get("Cache-Control")).toBe("no-store");
});

test("a public page requested without cookies is not marked no-store: the rule is not a blanket one", async () => {
  const page = await fetch(`${server.url}/docs/privacy-policy/`, { headers: { "Accept-Language": "ja" } });
  expect(page.status).toBe(200);
  expect(page.headers.get("Cache-Control") ?? "").not.toContain("no-store");
});
