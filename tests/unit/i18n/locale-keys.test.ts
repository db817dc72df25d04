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
