import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { staleBuildReason } from "../../support/build-freshness";
import { makeTempDir } from "../../support/temp-dir";

const temps: { remove(): void }[] = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

/** A checkout with sources and, when `builtAtS` is given, a build made at that time (seconds since the epoch). */
function checkout(files: Record<string, number>, builtAtS?: number): string {
  const temp = makeTempDir("build-freshness");
  temps.push(temp);
  const write = (file: string, atS: number) => {
    const full = path.join(temp.dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, "");
    utimesSync(full, atS, atS);
  };
  for (const [file, atS] of Object.entries(files)) write(file, atS);
  for (const folder of ["app", "app/routes", "locales", "locales/ja"]) {
    const full = path.join(temp.dir, folder);
    mkdirSync(full, { recursive: true });
    utimesSync(full, 1_000, 1_000);
  }
  if (builtAtS !== undefined) {
    write("build/server/index.js", builtAtS);
    write("build/http-server/start-server.js", builtAtS + 1);
  }
  return temp.dir;
}

const SOURCES = { "app/root.tsx": 1_000, "app/routes/home.tsx": 1_000, "locales/ja/common.json": 1_000 };

test("a build made after every source is fresh; none at all is not", () => {
  expect(staleBuildReason(checkout(SOURCES, 2_000))).toBeNull();
  expect(staleBuildReason(checkout(SOURCES))).toBe("there is no build");
});

test("a page, a translation or the lock file changed after the build is named", () => {
  expect(staleBuildReason(checkout({ ...SOURCES, "app/routes/home.tsx": 3_000 }, 2_000))).toBe(
    "app/routes/home.tsx changed after the build",
  );
  expect(staleBuildReason(checkout({ ...SOURCES, "locales/ja/common.json": 3_000 }, 2_000))).toBe(
    "locales/ja/common.json changed after the build",
  );
  expect(staleBuildReason(checkout({ ...SOURCES, "package-lock.json": 3_000 }, 2_000))).toBe(
    "package-lock.json changed after the build",
  );
});

test("a source changed between React Router's build and the server's counts: the build began before it", () => {
  expect(staleBuildReason(checkout({ ...SOURCES, "app/root.tsx": 2_000.5 }, 2_000))).toBe(
    "app/root.tsx changed after the build",
  );
});

test("a file deleted from a folder counts, by the folder's time", () => {
  const root = checkout(SOURCES, 2_000);
  utimesSync(path.join(root, "app/routes"), 3_000, 3_000);
  expect(staleBuildReason(root)).toBe(path.join("app", "routes") + " changed after the build");
});

test("this checkout's build is fresh once built: building writes none of its own sources", () => {
  // Vitest's global setup built it if it was stale; a build that touched its sources would be stale again here.
  expect(staleBuildReason(process.cwd())).toBeNull();
});
