import { beforeAll, describe, expect, test } from "vitest";
import { setCookieNamed } from "../../support/cookie-jar";
import { get, profileEmailIn, signedIn } from "../../support/session-http";
import { DEVICE_LIMIT_SERVER_ENV, type TestServer, useTestServers } from "../../support/session-servers";
import { getRequestCounts, resetRequestCounts, setFault } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";

/**
 * Signed-in page views over HTTP against the production build (preview mode) and its Cognito stand-in, whose harness
 * counts requests and injects faults: a page view
 * costs no Cognito call, and keeps working while Cognito is down or slow.
 */

const servers = useTestServers({ main: DEVICE_LIMIT_SERVER_ENV });
let main: TestServer;
beforeAll(() => {
  main = servers.main;
});

describe("signed-in page views", () => {
  test("make zero requests to Cognito (the access token is checked locally, the JWKS is cached)", async () => {
    const member = await createTestMember(main.standInPort, "zero-calls");
    const cookie = await signedIn(main, member);
    // Warm-up: the process fetches the JWKS at most once, and may have done so already.
    expect((await get(main, "/my/profile/", cookie)).status).toBe(200);
    await resetRequestCounts(main.standIn);

    for (let round = 0; round < 3; round++) {
      for (const path of ["/my/profile/", "/", "/en/my/profile/", "/auth/sign-in/"]) {
        const response = await get(main, path, cookie);
        expect(response.status, path).toBe(200);
        const html = await response.text();
        if (path.includes("/my/profile/")) expect(profileEmailIn(html)).toBe(member.email);
      }
    }
    expect(await getRequestCounts(main.standIn)).toEqual({ total: 0, byOperation: {} });
  });

  test.each([
    ["failing", { mode: "fail" } as const],
    ["slow", { mode: "slow", delayMs: 20_000 } as const],
  ])("keep working while Cognito is %s", async (_, fault) => {
    const member = await createTestMember(main.standInPort, "cognito-down");
    const cookie = await signedIn(main, member);
    // Every API operation answers 500, or only after 20 s (the JWKS is already cached, see above).
    await setFault(main.standIn, fault);
    await resetRequestCounts(main.standIn);
    for (let round = 0; round < 3; round++) {
      const response = await get(main, "/my/profile/", cookie);
      expect(response.status).toBe(200);
      expect(profileEmailIn(await response.text())).toBe(member.email);
      expect(setCookieNamed(response, "id_session")).toBeUndefined();
    }
    // Nothing waited on Cognito: no request reached it (the stand-in counts a request before its fault applies), which
    // a stopwatch could only suggest.
    expect(await getRequestCounts(main.standIn)).toEqual({ total: 0, byOperation: {} });
  });
});

test("a page is gzipped for a client that accepts it and sent as it is otherwise; a HEAD gets the headers alone", async () => {
  const gzipped = await fetch(`${main.origin}/`, { headers: { "Accept-Encoding": "gzip" } });
  expect(gzipped.headers.get("Content-Encoding")).toBe("gzip");
  expect(gzipped.headers.get("Vary")).toContain("Accept-Encoding");
  expect(await gzipped.text()).toContain("</html>");
  const plain = await fetch(`${main.origin}/`, { headers: { "Accept-Encoding": "identity" } });
  expect(plain.headers.get("Content-Encoding")).toBeNull();
  expect(await plain.text()).toContain("</html>");
  const head = await fetch(`${main.origin}/`, { method: "HEAD", headers: { "Accept-Encoding": "gzip" } });
  expect(head.status).toBe(200);
  expect(head.headers.get("Content-Type")).toBe(gzipped.headers.get("Content-Type"));
  expect(await head.text()).toBe("");
});

describe("document pages (app/routing/document-page.ts)", () => {
  const scriptsIn = (html: string) => (html.match(/<script\b/g) ?? []).length;
  const modulePreloadsIn = (html: string) => (html.match(/rel="modulepreload"/g) ?? []).length;

  test.each([
    "/docs/terms-of-use/",
    "/docs/terms-of-use/shinkenchiku-id/",
    "/en/docs/terms-of-use/shinkenchiku-online/",
    "/docs/privacy-policy/",
    "/en/docs/privacy-policy/from-a-sibling-service/",
    "/docs/api/",
    "/en/docs/api/",
  ])("%s is served as a document without scripts", async (path) => {
    const response = await get(main, path);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<h1");
    expect(scriptsIn(html)).toBe(0);
    expect(modulePreloadsIn(html)).toBe(0);
  });

  test.each(["/", "/auth/sign-in/", "/no-such-page/"])("%s still loads the app's JavaScript", async (path) => {
    const html = await (await get(main, path)).text();
    expect(scriptsIn(html)).toBeGreaterThan(0);
    expect(modulePreloadsIn(html)).toBeGreaterThan(0);
  });
});
