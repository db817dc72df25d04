/**
 * `npm run purge`: the retention rules and the two-systems repairs (app/domain/jobs/purge.server.ts): members who
 * cancelled more than 13 months ago, ended sessions and old e-mail-change tokens, and, when the
 * Cognito settings and SESSION_SECRETS are in the environment, owed Cognito deletions and refresh-token
 * revocations. Works on DATABASE_URL or the embedded PGlite in DATA_DIR. The server also runs it on a schedule;
 * this command is for cron or a scheduled task (docs/deployment.md).
 */
import { CANCELLED_DATA_RETENTION_MONTHS } from "~/domain/account/withdrawal.server";
import { runPurgeExclusively } from "~/domain/jobs/purge.server";
import { createDomainIdentity } from "~/composition-root.server";
import { openDatabase } from "~db/client.server";

const env = process.env;
const secrets = (env.SESSION_SECRETS ?? "").split(",").filter(Boolean);
const handle = openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR ?? ".data" });
const identity =
  env.COGNITO_USER_POOL_ID && env.COGNITO_CLIENT_ID && secrets.length > 0
    ? createDomainIdentity(
        {
          region: env.COGNITO_REGION ?? "ap-northeast-1",
          userPoolId: env.COGNITO_USER_POOL_ID,
          clientId: env.COGNITO_CLIENT_ID,
          // Owed staff revocations go through the staff client; without it they stay owed for the server's purge.
          ...(env.COGNITO_STAFF_CLIENT_ID ? { staffClientId: env.COGNITO_STAFF_CLIENT_ID } : {}),
          endpoint: env.COGNITO_ENDPOINT,
        },
        handle.db,
      )
    : undefined;
try {
  const report = await runPurgeExclusively(
    { db: handle.db, identity, config: { sessionSecrets: secrets } },
    new Date(),
  );
  if (!report) {
    console.log("Another purge is running; nothing done.");
  } else {
    console.log(
      `Purged ${report.cancelledProfiles} member(s) cancelled more than ${CANCELLED_DATA_RETENTION_MONTHS} months ago, ` +
        `${report.endedSessions} ended session(s), ${report.endedStaffSessions} ended staff session(s) and ` +
        `${report.emailChangeTokens} e-mail-change token(s) (${handle.kind}).`,
    );
    if (report.cognitoDeletions && report.revocations) {
      console.log(
        `Cognito: ${report.cognitoDeletions.deleted} owed user deletion(s) done (${report.cognitoDeletions.owed} still owed), ` +
          `${report.revocations.confirmed} owed revocation(s) done (${report.revocations.owed} still owed).`,
      );
    } else {
      console.log(
        "Cognito settings or SESSION_SECRETS not set: owed Cognito deletions and revocations left to the server.",
      );
    }
  }
} finally {
  await identity?.settleDirectoryWrites();
  await handle.close();
}
