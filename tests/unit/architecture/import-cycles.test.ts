import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");

// ESLint's import-x/no-cycle follows only imports that exist at run time; `import type` cycles still tangle the
// layers a reader has to hold in mind. This walks every import TypeScript sees, types included.
const COMPILER_OPTIONS: ts.CompilerOptions = {
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  module: ts.ModuleKind.ES2022,
  jsx: ts.JsxEmit.ReactJSX,
  allowImportingTsExtensions: true,
  paths: { "~/*": ["./app/*"], "~db/*": ["./db/*"] },
  baseUrl: ROOT,
};

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => path.join(ROOT, folder, file));
}

/** Each module of app/ and db/ with the modules of app/ and db/ it imports (values and types alike). */
function importGraph(): Map<string, string[]> {
  const files = [...sourceFiles("app"), ...sourceFiles("db")];
  const inScope = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map(({ fileName }) => ts.resolveModuleName(fileName, file, COMPILER_OPTIONS, ts.sys).resolvedModule)
      .map((resolved) => resolved?.resolvedFileName)
      .filter((target): target is string => target !== undefined && inScope.has(target));
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected groups of more than one module, or a module importing itself (Tarjan's algorithm). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || graph.get(node)?.includes(node)) cycles.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

test("the cycle finder reports a loop through several modules and a module that imports itself", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
    ["e", ["e"]],
  ]);
  expect(findCycles(graph)).toEqual([["a", "b", "c"], ["e"]]);
});

test("no module of app/ or db/ imports itself back, through values or types", () => {
  const graph = importGraph();
  // The walk must see the app's own imports, or an empty result would prove nothing.
  expect(graph.get(path.join(ROOT, "app/routes.ts"))).toContain(path.join(ROOT, "app/routing/route-table.ts"));
  const cycles = findCycles(graph).map((group) => group.map((file) => path.relative(ROOT, file)));
  expect(cycles).toEqual([]);
});
