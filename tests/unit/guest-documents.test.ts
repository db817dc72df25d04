import { type EntryContext, RouterContextProvider } from "react-router";
import { describe, expect, test } from "vitest";
import type { SignedInMember } from "~/domain/sessions/page-sessions.server";
import { GuestDocuments, guestDocumentKey } from "~/guest-documents.server";
import { memberContext } from "~/router-context.server";

/**
 * The public pages' documents for visitors not signed in (app/guest-documents.server.ts): which renders are kept, under
 * which key, and how a kept document gets each response's nonce. tests/integration/metrics.test.ts serves them.
 */

const URL_OF_HOME = "http://localhost/";

interface RenderInputs {
  loaderData?: Record<string, unknown>;
  actionData?: Record<string, unknown> | null;
  errors?: Record<string, unknown> | null;
  layout?: string;
}

/** What React Router hands the entry, reduced to what the key reads. */
function renderOf({ loaderData = {}, actionData = null, errors = null, layout = "ja.default" }: RenderInputs) {
  const matches = [{ route: { id: "root" } }, { route: { id: layout } }, { route: { id: "ja.index" } }];
  return { staticHandlerContext: { loaderData, actionData, errors, matches } } as unknown as EntryContext;
}

function contextWith(member: SignedInMember | null): RouterContextProvider {
  const context = new RouterContextProvider();
  context.set(memberContext, member);
  return context;
}

const guest = contextWith(null);
const homeData = { root: { member: null, locale: "ja", theme: "id" }, "ja.index": { translations: "{}" } };

describe("guestDocumentKey", () => {
  test("is the same for the same URL and loader data, and differs when either does", () => {
    const key = guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: homeData }), guest);
    expect(key).toEqual(expect.any(String));
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: structuredClone(homeData) }), guest)).toBe(key);
    expect(guestDocumentKey(`${URL_OF_HOME}?to=my-profile`, 200, renderOf({ loaderData: homeData }), guest)).not.toBe(
      key,
    );
    const otherTheme = { ...homeData, root: { ...homeData.root, theme: "compe" } };
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: otherTheme }), guest)).not.toBe(key);
    const toast = { ...homeData, root: { ...homeData.root, toast: { type: "info", text: "Signed out" } } };
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: toast }), guest)).not.toBe(key);
  });

  test("is null for a member's page, a page outside the public section, an action's or a failed render", () => {
    const member = contextWith({ sub: "s" } as unknown as SignedInMember);
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: homeData }), member)).toBeNull();
    expect(
      guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: homeData, layout: "ja.staff" }), guest),
    ).toBeNull();
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ actionData: { "ja.index": {} } }), guest)).toBeNull();
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ errors: { root: new Error("x") } }), guest)).toBeNull();
    expect(guestDocumentKey(URL_OF_HOME, 404, renderOf({ loaderData: homeData }), guest)).toBeNull();
    expect(guestDocumentKey(URL_OF_HOME, 503, renderOf({ loaderData: homeData }), guest)).toBeNull();
  });

  test("is null for loader data JSON would not stand for exactly", () => {
    for (const value of [new Date(0), new Map([["a", 1]]), new Set([1]), 1n, () => 1, new URL(URL_OF_HOME)]) {
      const loaderData = { ...homeData, "ja.index": { nested: [{ value }] } };
      expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData }), guest), String(value)).toBeNull();
    }
    const plain = { ...homeData, "ja.index": { list: [1, "a", null, { b: true }], empty: Object.create(null) } };
    expect(guestDocumentKey(URL_OF_HOME, 200, renderOf({ loaderData: plain }), guest)).toEqual(expect.any(String));
  });

  test("counts English pages of the public section too", () => {
    const english = renderOf({ loaderData: homeData, layout: "en.default" });
    expect(guestDocumentKey("http://localhost/en/", 200, english, guest)).toEqual(expect.any(String));
  });
});

describe("GuestDocuments", () => {
  const page = (nonce: string) =>
    `<!DOCTYPE html><html><head><link nonce="${nonce}"/></head><body>日本語<script nonce="${nonce}">1</script></body></html>`;

  test("gives a kept document back with the new nonce wherever the old one was, and nothing else changed", () => {
    const documents = new GuestDocuments();
    expect(documents.take("home", "second")).toBeUndefined();
    documents.keep("home", Buffer.from(page("first+nonce/A==")), "first+nonce/A==");
    expect(documents.take("home", "second+nonce/B==")?.toString()).toBe(page("second+nonce/B=="));
    expect(documents.take("home", "third")?.toString()).toBe(page("third"));
    expect(documents.take("other", "third")).toBeUndefined();
  });

  test("keeps a document without its nonce as it is", () => {
    const documents = new GuestDocuments();
    documents.keep("plain", Buffer.from("<p>no script</p>"), "n1");
    expect(documents.take("plain", "n2")?.toString()).toBe("<p>no script</p>");
  });

  test("drops the least recently used document past its capacity", () => {
    const documents = new GuestDocuments(2);
    documents.keep("a", Buffer.from("A"), "n");
    documents.keep("b", Buffer.from("B"), "n");
    expect(documents.take("a", "n")?.toString()).toBe("A");
    documents.keep("c", Buffer.from("C"), "n");
    expect(documents.take("b", "n")).toBeUndefined();
    expect(documents.take("a", "n")?.toString()).toBe("A");
    expect(documents.take("c", "n")?.toString()).toBe("C");
  });
});
