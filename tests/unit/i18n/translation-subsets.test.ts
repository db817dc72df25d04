import { afterEach, expect, test, vi } from "vitest";
import { RouterContextProvider } from "react-router";
import { loadTranslations, pickKeys } from "~/i18n/translations.server";
import { MISSING_TEXT_LOG, translate } from "~/i18n/use-translation";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import signUpEn from "../../../locales/en/sign-up.json";
import signUpJa from "../../../locales/ja/sign-up.json";

/** What translate logged as missing texts during the test ("namespace:path"), the console itself kept quiet. */
function missingTextsLogged(): () => string[] {
  const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
  return () =>
    spy.mock.calls
      .map((args) => String(args[0]))
      .filter((line) => line.startsWith(MISSING_TEXT_LOG))
      .map((line) => line.slice(MISSING_TEXT_LOG.length).trim().split(" ")[0]!);
}

afterEach(() => {
  vi.restoreAllMocks();
});

test("a namespace's subset keeps the asked texts and subtrees where lookups find them, and nothing else", () => {
  const missing = missingTextsLogged();
  const picked = pickKeys(signUpJa, ["title", "options.occupation", "account"]);
  expect(Object.keys(picked).sort()).toEqual(["account", "options", "title"]);
  expect(Object.keys(picked.options as object)).toEqual(["occupation"]);
  expect(translate({ signUp: picked }, "signUp", "options.occupation.student")).toBe(
    signUpJa.options.occupation.student,
  );
  expect(translate({ signUp: picked }, "signUp", "account.familyName")).toBe(signUpJa.account.familyName);
  // Left out: no text, never the key, and the miss is logged for the tests to fail on.
  expect(translate({ signUp: picked }, "signUp", "credentials.submit")).toBe("");
  expect(missing()).toEqual(["signUp:credentials.submit"]);
});

test("a key the namespace does not have is left out rather than sent as undefined", () => {
  expect(pickKeys(signUpJa, ["noSuchKey", "options.noSuchList"])).toEqual({});
});

test("a text found once is found again the same, its placeholders filled each time", () => {
  const bundles = { signUp: signUpJa };
  const first = translate(bundles, "signUp", "account.familyName");
  expect(first).toBe(signUpJa.account.familyName);
  expect(translate(bundles, "signUp", "account.familyName")).toBe(first);
  const withPlaceholder = { common: { greeting: "{{name}} さん" } };
  expect(translate(withPlaceholder, "common", "greeting", { name: "山田" })).toBe("山田 さん");
  expect(translate(withPlaceholder, "common", "greeting", { name: "佐藤" })).toBe("佐藤 さん");
});

test("a subtree or a missing key is no text, however often it is asked for, and is logged once", () => {
  const missing = missingTextsLogged();
  const bundles = { signUp: signUpJa };
  for (let attempt = 0; attempt < 2; attempt++) {
    expect(translate(bundles, "signUp", "options")).toBe("");
    expect(translate(bundles, "signUp", "options.noSuchKey")).toBe("");
  }
  expect(missing()).toEqual(["signUp:options", "signUp:options.noSuchKey"]);
});

/** A page request's router context once remix-i18next's middleware has run, as its loaders get it. */
async function pageContext(path: string) {
  const context = new RouterContextProvider();
  const args = { request: new Request(`http://localhost${path}`), context, params: {}, unstable_pattern: "" };
  await i18nextMiddleware(args as never, async () => new Response());
  return context;
}

test("a page's subset is built once per language and shared by later views; other key lists get their own", async () => {
  const pageTexts = [{ namespace: "signUp", keys: ["title", "account"] }] as const;
  const context = await pageContext("/sign-up/");
  const first = loadTranslations(context, pageTexts);
  expect(loadTranslations(await pageContext("/sign-up/"), pageTexts).signUp).toBe(first.signUp);
  // Sent as JSON text: one value for React Router to serialise.
  expect(typeof first.signUp).toBe("string");
  expect(JSON.parse(first.signUp as string)).toEqual(pickKeys(signUpJa, ["title", "account"]));
  const other = loadTranslations(context, [{ namespace: "signUp", keys: ["title"] }]);
  expect(JSON.parse(other.signUp as string)).toEqual({ title: signUpJa.title });
  const english = loadTranslations(await pageContext("/en/sign-up/"), pageTexts);
  expect(JSON.parse(english.signUp as string)).toEqual(pickKeys(signUpEn, ["title", "account"]));
});

test("texts sent as JSON are looked up as the tree they stand for, placeholders and missing keys alike", async () => {
  const missing = missingTextsLogged();
  const sent = loadTranslations(await pageContext("/en/sign-up/"), [{ namespace: "signUp", keys: ["account"] }]);
  expect(translate(sent, "signUp", "account.familyName")).toBe(signUpEn.account.familyName);
  expect(translate(sent, "signUp", "title")).toBe("");
  expect(missing()).toEqual(["signUp:title"]);
  expect(
    translate({ common: JSON.stringify({ greeting: "{{name}} さん" }) }, "common", "greeting", { name: "山田" }),
  ).toBe("山田 さん");
});
