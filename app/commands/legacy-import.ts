/**
 * `npm run legacy:import -- accounts.csv`: loads pre-July-2021 accounts (header: email,password_hash and
 * optionally family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language)
 * into DATABASE_URL, or the embedded PGlite in DATA_DIR. Bad rows are listed by line and field; good rows load.
 * A hash above bcrypt cost MAX_LEGACY_BCRYPT_COST (legacy-password.server.ts) is a bad row ("bcrypt cost above
 * 12"): each sign-in with it would hold the app's thread too long. Safe to run again with the same or a corrected file.
 */
import { readFile } from "node:fs/promises";
import { importLegacyRows, parseLegacyCsv } from "~/domain/account/legacy-accounts.server";
import { openDatabase } from "~db/client.server";

const MAX_FILE_BYTES = 200 * 1024 * 1024;
const file = process.argv[2];
if (!file) {
  console.error("Usage: npm run legacy:import -- <file.csv>");
  process.exit(2);
}
const text = await readFile(file, "utf8");
if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
  console.error(`The file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB; split it.`);
  process.exit(2);
}
const { rows, errors } = parseLegacyCsv(text);
for (const error of errors) console.error(`line ${error.line}, ${error.field}: ${error.message}`);
const handle = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? ".data" });
try {
  await handle.migrate();
  const imported = await importLegacyRows(handle.db, rows);
  console.log(`Imported ${imported} legacy account(s); ${errors.length} problem(s) reported.`);
} finally {
  await handle.close();
}
process.exit(errors.length > 0 ? 1 : 0);
