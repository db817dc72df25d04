/**
 * `npm run purge`: deletes the data of members who cancelled more than 13 months ago (spec section 9), from
 * DATABASE_URL or the embedded PGlite in DATA_DIR. Run it daily (cron or a scheduled task); see README.md.
 */
import { CANCELLED_DATA_RETENTION_MONTHS, purgeCancelledProfiles } from "../app/domain/withdrawal.server";
import { openDatabase } from "./client.server";

const handle = openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: process.env.DATA_DIR ?? ".data" });
try {
  const { purged } = await purgeCancelledProfiles(handle.db, new Date());
  console.log(`Purged ${purged} member(s) cancelled more than ${CANCELLED_DATA_RETENTION_MONTHS} months ago (${handle.kind}).`);
} finally {
  await handle.close();
}
