import { expect, test } from "vitest";
import { isSameOriginRequest } from "~/middleware/csrf.server";

const OWN = "https://id.example.jp";

function post(headers: Record<string, string>) {
  return new Request(`${OWN}/auth/sign-out/`, { method: "POST", headers });
}

test("our own pages may post", () => {
  expect(isSameOriginRequest(post({ "Sec-Fetch-Site": "same-origin", Origin: OWN }), OWN)).toBe(true);
  expect(isSameOriginRequest(post({ Origin: OWN }), OWN)).toBe(true);
  expect(isSameOriginRequest(post({}), OWN)).toBe(true);
});

test("other origins, sibling subdomains included, may not", () => {
  expect(isSameOriginRequest(post({ "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }), OWN)).toBe(false);
  expect(isSameOriginRequest(post({ "Sec-Fetch-Site": "same-site", Origin: "https://data.example.jp" }), OWN)).toBe(false);
  expect(isSameOriginRequest(post({ Origin: "https://data.example.jp" }), OWN)).toBe(false);
  expect(isSameOriginRequest(post({ Origin: "null" }), OWN)).toBe(false);
});
