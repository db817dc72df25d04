/**
 * `npm run directory:reconcile`: one reconcile of the staff's member directory with Cognito
 * (app/domain/directory/directory-reconcile.server.ts): every Cognito user upserted, drift counted and fixed, users
 * Cognito no longer has marked missing. Resumes a run a stopped process left behind. Needs the Cognito settings;
 * works on DATABASE_URL or the embedded PGlite in DATA_DIR. The server also runs it on a schedule; this command is
 * for cron, or to fill the directory once after deployment (docs/deployment.md).
 */
import { parseConfig } from "~/config.server";
import { reconcileDirectory } from "~/domain/directory/directory-reconcile.server";
import { systemClock } from "~/services.server";
import { createDomainIdentity } from "~/composition-root.server";
import { openDatabase } from "~db/client.server";

const config = parseConfig(process.env);
if (!config.cognito.userPoolId) {
  console.error("COGNITO_USER_POOL_ID (and the other Cognito settings) must be set.");
  process.exit(1);
}
const handle = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const stop = new AbortController();
process.once("SIGINT", () => stop.abort());
process.once("SIGTERM", () => stop.abort());
try {
  const outcome = await reconcileDirectory(
    { db: handle.db, identity: createDomainIdentity(config.cognito, handle.db), clock: systemClock },
    { requestsPerSecond: config.directoryReconcile.requestsPerSecond, signal: stop.signal },
  );
  if (outcome.kind === "busy") {
    console.log("Another instance is reconciling the directory; nothing done.");
  } else if (outcome.kind === "lost") {
    console.log("Another instance took the run over; stopped.");
  } else {
    const { usersSeen, pagesRead, drift } = outcome.run;
    const verdict = outcome.kind === "finished" ? "Reconciled" : "Stopped; the next run resumes. So far";
    console.log(
      `${verdict}: ${usersSeen} Cognito user(s) in ${pagesRead} page(s) at ${config.directoryReconcile.requestsPerSecond} request(s)/s; ` +
        `drift fixed: ${drift.added} added, ${drift.changed} changed, ${drift.missing} missing (${handle.kind}).`,
    );
  }
} finally {
  await handle.close();
}
