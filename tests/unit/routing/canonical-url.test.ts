import { expect, test } from "vitest";
import { decideCanonicalUrl } from "~/routing/canonical-url";

const OWN_ORIGIN = "http://id.test";

/** The decision for a raw request target, as the server builds the URL: our origin, then the target as sent. */
function decideFor(target: string, rememberedLocale?: string, acceptLanguage: string | null = null) {
  return decideCanonicalUrl({ url: new URL(`${OWN_ORIGIN}${target}`), rememberedLocale, acceptLanguage });
}

// Every canonical redirect (trailing slash, ?locale=, the root's language) must stay on our origin: a Location of
// "//evil.example/" is another site to a browser.
test.each([
  ["//evil.example"],
  ["///evil.example"],
  ["//evil.example/"],
  ["/\\evil.example"],
  ["/\\/evil.example"],
  ["//evil.example/?locale=xx"],
  ["//evil.example/?locale=en"],
  ["/en//evil.example/?locale=ja"],
  ["/en///evil.example/?locale=ja"],
  ["/en//evil.example?locale=ja"],
  ["//en/?locale=ja"],
])("%j redirects to a path of our own", (target) => {
  const decision = decideFor(target, "en", "en");
  expect(decision.kind).toBe("redirect");
  const location = decision.kind === "redirect" ? decision.location : "";
  expect(location).toMatch(/^\/(?![/\\])/);
  const followed = new URL(location, `${OWN_ORIGIN}/some/page/`);
  expect(followed.origin).toBe(OWN_ORIGIN);
});

test("leading slashes collapse into one in the permanent trailing-slash redirect", () => {
  expect(decideFor("//evil.example")).toEqual({ kind: "redirect", location: "/evil.example/", permanent: true });
  expect(decideFor("///evil.example/?a=1")).toEqual({
    kind: "redirect",
    location: "/evil.example/?a=1",
    permanent: true,
  });
  expect(decideFor("/docs/terms-of-use")).toEqual({
    kind: "redirect",
    location: "/docs/terms-of-use/",
    permanent: true,
  });
  expect(decideFor("/docs/terms-of-use/")).toEqual({ kind: "continue" });
});
