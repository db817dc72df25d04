import { expect, test } from "vitest";
import { resolveReturnTarget } from "~/routing/return-target";

const SIBLINGS = ["https://data.example.jp", "https://compe.example.jp"];
const resolve = (to: string | null) => resolveReturnTarget(to, "ja", SIBLINGS);

test("route names, own paths and allowlisted sibling pages are accepted", () => {
  expect(resolve("index")).toBe("/");
  expect(resolveReturnTarget("docs-privacy-policy", "en", SIBLINGS)).toBe("/en/docs/privacy-policy/");
  expect(resolve("/docs/terms-of-use/?x=1#a")).toBe("/docs/terms-of-use/?x=1#a");
  expect(resolve("https://data.example.jp/articles/1?ref=id")).toBe("https://data.example.jp/articles/1?ref=id");
});

test("own paths come back normalised: dot segments resolved, never a path the browser would read differently", () => {
  expect(resolve("/my/./profile/")).toBe("/my/profile/");
  expect(resolve("/docs/x/../terms-of-use/")).toBe("/docs/terms-of-use/");
  expect(resolve("/a/../")).toBe("/");
  expect(resolve("/docs/terms-of-use/?q=100%25")).toBe("/docs/terms-of-use/?q=100%25");
});

// An open-redirect fuzz list: each must fall back to the default.
test.each([
  [null],
  [""],
  ["//evil.example"],
  ["///evil.example"],
  ["/\\evil.example"],
  ["\\\\evil.example"],
  ["/%2F%2Fevil.example"],
  ["%2F%2Fevil.example"],
  ["/%5Cevil.example"],
  ["https://evil.example/"],
  ["http://data.example.jp/"],
  ["https://data.example.jp.evil.example/"],
  ["https://data.example.jp@evil.example/"],
  ["https://user:pass@data.example.jp/"],
  ["javascript:alert(1)"],
  ["JaVaScRiPt:alert(1)"],
  ["data:text/html,<script>alert(1)</script>"],
  ["/\t/evil.example"],
  ["/\n/evil.example"],
  ["/\r/evil.example"],
  ["\t//evil.example"],
  ["/%09/evil.example"],
  ["/%0a/evil.example"],
  // Dot segments: these only become "//evil.example" once the URL is normalised.
  ["/.//evil.example"],
  ["/./\\evil.example"],
  ["/a/..//evil.example"],
  ["/a/b/../..//evil.example"],
  ["/..//evil.example"],
  ["/%2e//evil.example"],
  ["/%2E//evil.example"],
  ["/%2e%2e//evil.example"],
  ["/a/%2e%2e//evil.example"],
  ["/.%2e//evil.example"],
  ["/%252e//evil.example"],
  // Encoded and double-encoded slashes and backslashes.
  ["/%2f/evil.example"],
  ["/%2f%2fevil.example"],
  ["/%5c/evil.example"],
  ["/%5C%5Cevil.example"],
  ["/%252F%252Fevil.example"],
  ["/%25252F%25252Fevil.example"],
  ["/%255cevil.example"],
  ["/\\/evil.example"],
  ["/\\\\evil.example"],
  ["%0d%0aSet-Cookie:x=y"],
  ["/%E0%A4%A"],
  ["not-a-route-name"],
  ["rebranding-debugs-page"],
])("%j is refused", (to) => {
  expect(resolve(to)).toBeNull();
});
