import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

/** Every user-facing string exists in both languages, with the same placeholders. */
const LOCALES_DIR = path.resolve("locales");

function leaves(value: unknown, prefix = ""): Map<string, string> {
  const found = new Map<string, string>();
  if (typeof value === "string") found.set(prefix, value);
  else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      for (const [leafKey, leaf] of leaves(child, prefix ? `${prefix}.${key}` : key)) found.set(leafKey, leaf);
    }
  }
  return found;
}

const placeholders = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
const namespaces = readdirSync(path.join(LOCALES_DIR, "ja")).filter((file) => file.endsWith(".json"));

test("both languages have the same namespace files", () => {
  expect(
    readdirSync(path.join(LOCALES_DIR, "en"))
      .filter((f) => f.endsWith(".json"))
      .sort(),
  ).toEqual([...namespaces].sort());
});

test.each(namespaces)("%s has the same keys, placeholders and no empty strings in ja and en", (file) => {
  const ja = leaves(JSON.parse(readFileSync(path.join(LOCALES_DIR, "ja", file), "utf8")));
  const en = leaves(JSON.parse(readFileSync(path.join(LOCALES_DIR, "en", file), "utf8")));
  expect([...en.keys()].sort()).toEqual([...ja.keys()].sort());
  for (const [key, jaText] of ja) {
    expect(placeholders(en.get(key) ?? ""), `placeholders of ${file}:${key}`).toEqual(placeholders(jaText));
    expect(jaText.trim(), `ja ${file}:${key}`).not.toBe("");
    expect((en.get(key) ?? "").trim(), `en ${file}:${key}`).not.toBe("");
  }
});

/**
 * One word family for signing in per language (docs/decisions.md, "Words"): the spec fixes English "log in", "log out",
 * "Continue login", so English never says "sign in" or "sign out", nor splits the verb ("signs you in", "Sign this
 * member out"); "sign up" is another act and stays. Word boundaries keep "signing up" and "design" out.
 */
const ENGLISH_SIGN_IN_OR_OUT = /\bsign(?:s|ed|ing)?(?:[ -]?(?:in|out)s?\b|\s+(?!up\b)(?:[\w'-]+\s+){1,3}(?:in|out)\b)/i;
const JAPANESE_SIGN_IN_OR_OUT = /サインイン|サインアウト/;

function textsMatching(locale: "ja" | "en", pattern: RegExp): string[] {
  return namespaces.flatMap((file) =>
    [...leaves(JSON.parse(readFileSync(path.join(LOCALES_DIR, locale, file), "utf8")))]
      .filter(([, text]) => pattern.test(text))
      .map(([key, text]) => `${file}:${key}: ${text}`),
  );
}

test("the English guard catches every form of sign in and sign out, and lets sign up through", () => {
  const caught = [
    "Sign in",
    "signed in",
    "Signed-in devices",
    "signing in",
    "Last sign-in",
    "Recent sign-ins",
    "signin",
    "Sign out",
    "signed out",
    "sign-out",
    "A passkey signs you in",
    "Sign this member out on every device?",
  ];
  const spared = ["Sign up", "Thank you for signing up.", "Sign-ups per month", "Signed up in this browser", "design"];
  expect(caught.filter((text) => !ENGLISH_SIGN_IN_OR_OUT.test(text))).toEqual([]);
  expect(spared.filter((text) => ENGLISH_SIGN_IN_OR_OUT.test(text))).toEqual([]);
});

test("English says log in and log out, never sign in or sign out", () => {
  expect(textsMatching("en", ENGLISH_SIGN_IN_OR_OUT)).toEqual([]);
});

test("Japanese says ログイン and ログアウト, never サインイン or サインアウト", () => {
  expect(textsMatching("ja", JAPANESE_SIGN_IN_OR_OUT)).toEqual([]);
});
