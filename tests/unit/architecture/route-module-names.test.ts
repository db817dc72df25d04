import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { ROUTE_SECTIONS } from "~/routing/route-table";
import { routeModules } from "../../support/route-modules";

const APP = path.resolve(import.meta.dirname, "../../../app");

/** The files under app/<folder>, relative to app/, without React Router's generated types. */
function filesUnder(folder: string): string[] {
  return readdirSync(path.join(APP, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(APP, path.join(entry.parentPath, entry.name)))
    .sort();
}

const withoutExtension = (file: string) => file.replace(/\.tsx?$/, "");

test("each page's module is app/routes/<section>/<route name>, each layout app/layouts/<section>-layout", () => {
  const fileById = new Map(routeModules().map(({ id, file }) => [id, withoutExtension(file)]));
  for (const section of ROUTE_SECTIONS) {
    for (const locale of ["ja", "en"]) {
      expect(fileById.get(`${locale}.${section.id}`)).toBe(`layouts/${section.id}-layout`);
      for (const page of section.pages) {
        expect(fileById.get(`${locale}.${page.name}`)).toBe(`routes/${section.id}/${page.name}`);
      }
    }
  }
});

test("each API route's module is named after its id (api.admin.users is app/routes/api/admin/users.ts)", () => {
  const apiRoutes = routeModules().filter(({ id }) => id.startsWith("api."));
  expect(apiRoutes.length).toBeGreaterThan(0);
  for (const { id, file } of apiRoutes) expect(file).toBe(`routes/${id.replaceAll(".", "/")}.ts`);
});

test("every module in app/routes/ and app/layouts/ is a route's, or a server module beside the routes it serves", () => {
  const routeFiles = new Set(routeModules().map(({ file }) => file));
  const modules = [...filesUnder("routes"), ...filesUnder("layouts")].filter((file) => !file.endsWith(".server.ts"));
  expect(modules.filter((file) => !routeFiles.has(file))).toEqual([]);

  // A server module is a route's companion (auth-sign-up.server.ts beside auth-sign-up.tsx) or a helper that
  // several routes of its folder share (and then named after what it does).
  const companionOrShared = (serverFile: string) => {
    const folder = path.dirname(serverFile);
    const base = path.basename(serverFile, ".server.ts");
    const siblings = [...routeFiles].filter((file) => path.dirname(file) === folder);
    if (siblings.some((file) => withoutExtension(path.basename(file)) === base)) return true;
    const importers = siblings.filter((file) =>
      readFileSync(path.join(APP, file), "utf8").includes(`"./${base}.server"`),
    );
    return importers.length > 1;
  };
  const serverModules = filesUnder("routes").filter((file) => file.endsWith(".server.ts"));
  expect(serverModules.length).toBeGreaterThan(0);
  expect(serverModules.filter((file) => !companionOrShared(file))).toEqual([]);
});
