import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { CONFIG_VARIABLES } from "~/config.server";

const README = path.resolve(import.meta.dirname, "../../../README.md");

/**
 * The variables the README's "Configuration" section documents: every backquoted UPPER_CASE name in the first cell
 * of its tables' rows (a row may name several, as the sibling services' rows do).
 */
function documentedVariables(readme: string): string[] {
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (section === undefined) throw new Error('README.md has no "## Configuration" section followed by another');
  const names = section
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .map((line) => line.split("|")[1] ?? "")
    .flatMap((cell) => [...cell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1]!));
  return names;
}

test("the README's configuration table names exactly the variables the config schema reads, each once", () => {
  const documented = documentedVariables(readFileSync(README, "utf8"));
  expect(
    documented.filter((name, index) => documented.indexOf(name) !== index),
    "named twice",
  ).toEqual([]);
  expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
});
