import { ensureFreshBuild } from "./build-freshness";
import { createPgliteTemplate } from "./pglite-template";

/**
 * Once per Vitest run, before any test file: the compiled build the integration tests serve, rebuilt if its sources
 * changed since (build-freshness.ts), and the migrated PGlite the test servers and files start from.
 */
export default async function setup() {
  ensureFreshBuild();
  const template = await createPgliteTemplate();
  return () => template.remove();
}
