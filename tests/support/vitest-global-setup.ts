import { createPgliteTemplate } from "./pglite-template";

/** Once per Vitest run, before any test file: the migrated PGlite the test servers and files start from. */
export default async function setup() {
  const template = await createPgliteTemplate();
  return () => template.remove();
}
