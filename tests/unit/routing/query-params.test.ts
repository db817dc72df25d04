import { expect, test } from "vitest";
import { withoutEmptyParams } from "~/routing/query-params";

test("a GET form's empty fields are dropped from the URL, the filled ones kept in order", () => {
  const url = new URL("http://localhost/admin/?q=yamada&status=&locale=+&referrer=data&sort=");
  expect(withoutEmptyParams(url)).toBe("/admin/?q=yamada&referrer=data");
});

test("a query of empty fields only leaves the bare path", () => {
  expect(withoutEmptyParams(new URL("http://localhost/en/admin/audit-log/?actor=&action="))).toBe(
    "/en/admin/audit-log/",
  );
});

test("a URL without empty fields needs no redirect", () => {
  expect(withoutEmptyParams(new URL("http://localhost/admin/?q=%E5%B1%B1%E7%94%B0"))).toBeNull();
  expect(withoutEmptyParams(new URL("http://localhost/admin/"))).toBeNull();
});
