import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

const APP = path.resolve(import.meta.dirname, "../../../app");

// Names that appear in more than one folder of app/ and are one thing, with the folders they appear in.
const SAME_THING: Record<string, string[]> = {
  // A stylesheet named after the component it styles.
  "language-switch": ["components", "styles"],
  "site-footer": ["components", "styles"],
  "site-header": ["components", "styles"],
  "site-menu": ["components", "styles"],
  "user-menu": ["components", "styles"],
  // A section's first page and the stylesheet of that section's pages.
  admin: ["routes/staff", "styles"],
  auth: ["routes/default", "styles"],
  // The server's toast helpers and the toasts' stylesheet.
  toast: [".", "styles"],
  // The catch-all 404 of the page lane and of the API lane.
  "not-found": ["routes/api", "routes/default"],
  // An API route and what it serves: the OpenAPI document.
  openapi: ["api", "routes/api"],
  // A command-line job and the domain rules it runs.
  purge: ["commands", "domain/jobs"],
};

const KNOWN = SAME_THING;

/** Every file name under app/ without its suffixes (`x.server.ts`, `x.tsx` and `x.css` are all `x`), with its folders. */
function foldersByName(): Map<string, string[]> {
  const byName = new Map<string, Set<string>>();
  for (const entry of readdirSync(APP, { recursive: true, withFileTypes: true })) {
    // A folder's README.md documents the folder: it names no module.
    if (!entry.isFile() || entry.name.endsWith(".md")) continue;
    const folder = path.relative(APP, entry.parentPath) || ".";
    const name = entry.name.split(".")[0]!;
    byName.set(name, (byName.get(name) ?? new Set()).add(folder));
  }
  return new Map([...byName].map(([name, folders]) => [name, [...folders].sort()]));
}

test("no file name under app/ stands for different things in two folders", () => {
  const collisions = Object.fromEntries(
    [...foldersByName()].filter(
      ([name, folders]) => folders.length > 1 && folders.join() !== KNOWN[name]?.slice().sort().join(),
    ),
  );
  expect(collisions).toEqual({});
});

test("every listed name still appears in exactly the folders listed", () => {
  const byName = foldersByName();
  for (const [name, folders] of Object.entries(KNOWN)) {
    expect(byName.get(name), name).toEqual(folders.slice().sort());
  }
});
