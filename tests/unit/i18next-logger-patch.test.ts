import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

// .patches/README.md: the installed i18next builds its loggers' options with one spread, not a spread of a literal.
const distDirectory = path.dirname(path.dirname(createRequire(import.meta.url).resolve("i18next")));

describe("the installed i18next (.patches/i18next+26.7.2.patch)", () => {
  it.each(["esm", "cjs"])("copies a logger's options with one spread in its %s build", (build) => {
    const source = readFileSync(path.join(distDirectory, build, "i18next.js"), "utf8");
    const create = source.slice(source.indexOf("create(moduleName) {"), source.indexOf("clone(options) {"));
    expect(create).toMatch(/prefix: `\$\{this\.prefix\}:\$\{moduleName\}:`,\s*\.\.\.this\.options/);
    expect(create).not.toContain("...{");
  });
});
