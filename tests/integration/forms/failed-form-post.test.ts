import { beforeAll, expect, test } from "vitest";
import { cookieHeader, setCookieNamed } from "../../support/cookie-jar";
import { get, post, postForm } from "../../support/session-http";
import { type TestServer, useTestServers } from "../../support/session-servers";
import { setFault } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";
import { toastTextIn } from "../../support/toast-text";

/**
 * A form post that fails on the server with a 5xx, over HTTP against the production build: made with JavaScript
 * (React Router's `.data` request) it sends the browser back to its page with the generic internal-error toast;
 * without JavaScript (a document post) the answer is the 500 page. The design debug toast page's "failure" button
 * is an action that throws.
 */

const servers = useTestServers({ main: {} });
let main: TestServer;
beforeAll(() => {
  main = servers.main;
});

const INTERNAL_ERROR = "内部エラーが発生しました。時間をおいて再度お試しください";

/** A post as React Router's client sends it: to the page's `.data` URL, from a page of ours. */
function postWithJavaScript(path: string, fields: Record<string, string>, referer: string) {
  return postForm(`${main.origin}${path}`, fields, {
    headers: { Origin: main.origin, Referer: `${main.origin}${referer}`, "Sec-Fetch-Mode": "cors" },
  });
}

test("with JavaScript a failing post sends the browser back to its page, which shows the internal-error toast", async () => {
  const response = await postWithJavaScript(
    "/rebranding-debugs/toast/_.data",
    { kind: "failure" },
    "/rebranding-debugs/toast/?from=test",
  );
  // React Router's redirect for a `.data` request: 202, the target in the body.
  expect(response.status).toBe(202);
  expect(await response.text()).toContain('"/rebranding-debugs/toast/?from=test"');
  expect(setCookieNamed(response, "toast")).toBeDefined();

  const page = await get(main, "/rebranding-debugs/toast/?from=test", cookieHeader(response));
  expect(page.status).toBe(200);
  expect(toastTextIn(await page.text())).toBe(INTERNAL_ERROR);
});

test("without a Referer the page is the one whose action failed", async () => {
  const response = await postForm(
    `${main.origin}/en/rebranding-debugs/toast/_.data`,
    { kind: "failure" },
    {
      headers: { Origin: main.origin },
    },
  );
  expect(response.status).toBe(202);
  expect(await response.text()).toContain('"/en/rebranding-debugs/toast/"');
});

test("a Referer of ours whose path reads as another site sends the browser home, not there", async () => {
  const response = await postWithJavaScript("/rebranding-debugs/toast/_.data", { kind: "failure" }, "//evil.example/x");
  expect(response.status).toBe(202);
  const body = await response.text();
  expect(body).not.toContain("evil.example");
  expect(body).toContain('"/"');
});

test("without JavaScript the same post answers the 500 page and leaves no toast", async () => {
  const response = await post(main, "/rebranding-debugs/toast/", { kind: "failure" });
  expect(response.status).toBe(500);
  expect(response.headers.get("Content-Type")).toMatch(/^text\/html/);
  expect(response.headers.getSetCookie().some((cookie) => cookie.includes("toast"))).toBe(false);
});

test("an action that answers a 5xx itself keeps its own message on the form, not the toast", async () => {
  const member = await createTestMember(main.standInPort, "cognito-down");
  await setFault(main.standIn, { mode: "fail", operations: ["AdminInitiateAuth"] });
  const response = await postWithJavaScript("/auth/sign-in/_.data", { intent: "sign-in", ...member }, "/auth/sign-in/");
  expect(response.status).toBe(503);
  expect(await response.text()).toContain("認証サービスが一時的に利用できません");
  expect(response.headers.getSetCookie().some((cookie) => cookie.includes("toast"))).toBe(false);
});
