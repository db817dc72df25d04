import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** A fresh directory for one test file's embedded data, removed by the returned function. */
export function makeTempDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `member-account-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
