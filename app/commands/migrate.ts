/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded PGlite in DATA_DIR. */
import { openDatabase } from "~db/client.server";

const handle = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? ".data" });
try {
  await handle.migrate();
  console.log(`Migrations applied (${handle.kind}).`);
} finally {
  await handle.close();
}
