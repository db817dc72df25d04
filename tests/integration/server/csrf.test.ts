import { afterAll, beforeAll, expect, test } from "vitest";
import { type ServerProcess, startServerProcess } from "../../support/server-process";

// Cookie-authenticated posts from another origin, sibling subdomains included, get 403.
let server: ServerProcess;

beforeAll(async () => {
  server = await startServerProcess("preview");
});

afterAll(async () => {
  await server.stop();
});

function postSignOut(headers: Record<string, string>) {
  return fetch(`${server.url}/auth/sign-out/`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: "",
  });
}

test.each([
  [{ "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }],
  [{ "Sec-Fetch-Site": "same-site", Origin: "https://data.example.jp" }],
  [{ Origin: "https://data.example.jp" }],
])("a post with %j is refused with 403", async (headers) => {
  expect((await postSignOut(headers)).status).toBe(403);
});

test("a post from our own pages goes through", async () => {
  const response = await postSignOut({ "Sec-Fetch-Site": "same-origin" });
  expect(response.status).toBe(302);
});
