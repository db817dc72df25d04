import { expect, test } from "vitest";
import { isAllowedOrigin } from "~/server/csrf";

const OWN = "https://id.example.jp";
const post = (headers: Record<string, string>) => isAllowedOrigin("POST", new Headers(headers), OWN);

test("our own pages may post, and reading is always allowed", () => {
  expect(post({ "Sec-Fetch-Site": "same-origin", Origin: OWN })).toBe(true);
  expect(post({ Origin: OWN })).toBe(true);
  expect(post({})).toBe(true);
  expect(isAllowedOrigin("GET", new Headers({ "Sec-Fetch-Site": "cross-site" }), OWN)).toBe(true);
});

test("other origins, sibling subdomains included, may not", () => {
  expect(post({ "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" })).toBe(false);
  expect(post({ "Sec-Fetch-Site": "same-site", Origin: "https://data.example.jp" })).toBe(false);
  expect(post({ Origin: "https://data.example.jp" })).toBe(false);
  expect(post({ Origin: "null" })).toBe(false);
  expect(isAllowedOrigin("DELETE", new Headers({ "Sec-Fetch-Site": "cross-site" }), OWN)).toBe(false);
});

test("a same-origin post from a page opened under another name for this server is refused here, not by React Router", () => {
  expect(post({ "Sec-Fetch-Site": "same-origin", Origin: "https://id-internal.example.jp" })).toBe(false);
  expect(post({ "Sec-Fetch-Site": "same-origin" })).toBe(true);
});
