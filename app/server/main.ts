/**
 * The server process: `npm run dev` (Vite, embedded defaults), `npm run preview` (the production build on
 * embedded defaults) and `npm start` (the production build on real configuration only).
 */
import { type Server, createServer } from "node:http";
import { openDatabase } from "../../db/client.server";
import { type AppMode, type Config, ConfigError, parseConfig, parseModeArgument } from "~/config.server";
import { MIN_PASSWORD_LENGTH } from "~/domain/auth-schemas";
import { schedulePurge } from "~/domain/purge.server";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { identityPoolProblems } from "~/integrations/cognito/pool-contract.server";
import { logger } from "~/integrations/logger.server";
import { systemClock } from "~/services.server";
import { type EmbeddedStack } from "./embedded/embedded-stack";
import { createHttpApp } from "./http-app";
import { applyServerTimeouts } from "./server-timeouts";

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Stops the process before it serves anything, naming every problem. */
function refuseToStart(heading: string, problems: string[], reference: string): never {
  console.error(`${heading}\n${problems.map((problem) => `  - ${problem}`).join("\n")}\nSee the README's ${reference}.`);
  process.exit(1);
}

async function main() {
  let mode: AppMode;
  try {
    mode = parseModeArgument(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    refuseToStart("The server was not told which mode to run in:", error.problems, "Quick start");
  }
  process.env.APP_MODE = mode;

  let embedded: EmbeddedStack | undefined;
  if (mode !== "production") {
    // Imported only here: production installs need neither cognito-local nor the SMTP capture.
    const { startEmbeddedStack } = await import("./embedded/embedded-stack");
    embedded = await startEmbeddedStack({
      dataDir: process.env.DATA_DIR ?? ".data",
      adminGroup: process.env.ADMIN_GROUP ?? "admin",
      cognitoPort: Number(process.env.STANDIN_COGNITO_PORT ?? 0),
      smtpPort: Number(process.env.STANDIN_SMTP_PORT ?? 0),
    });
    Object.assign(process.env, embedded.env);
  }

  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    await embedded?.stop();
    if (!(error instanceof ConfigError)) throw error;
    refuseToStart("Invalid configuration:", error.problems, "configuration table");
  }

  // Every mode checks the pool: production's is real Cognito; dev and preview prove the stand-in is provisioned alike.
  const cognito = createCognitoClient(config.cognito);
  const poolProblems = await identityPoolProblems(createIdentityProvider(config.cognito, cognito), {
    minimumPasswordLength: MIN_PASSWORD_LENGTH,
    adminGroup: config.adminGroup,
  }).finally(() => cognito.destroy());
  if (poolProblems.length > 0) {
    await embedded?.stop();
    refuseToStart(
      `The Cognito user pool ${config.cognito.userPoolId} and app client do not meet the deployment contract:`,
      poolProblems,
      "Cognito deployment contract",
    );
  }

  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await database.migrate();
  // Retention and the two-systems repairs (owed Cognito deletions and revocations); see app/domain/purge.server.ts.
  const stopPurge = schedulePurge({ db: database.db, identity: createIdentityProvider(config.cognito), config, clock: systemClock });

  const http = await createHttpApp(config, database);
  const server: Server = applyServerTimeouts(createServer(http.listener)).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info({ mode, host: config.host, port, database: database.kind }, "server started");
  // The origin the app puts in links and checks posts against: announcing it makes the three agree.
  const url = `${config.origin}/`;
  console.log(`\n  Member account (${mode}) ready at ${url}`);
  if (embedded) {
    console.log(`  Development admin: ${embedded.admin.email} / ${embedded.admin.password}`);
    console.log(`  Cognito stand-in (AWS SDK endpoint): ${embedded.env.COGNITO_ENDPOINT}`);
    console.log(
      `  Cognito user pool id: ${config.cognito.userPoolId}, app client id: ${config.cognito.clientId} ` +
        `(region ${config.cognito.region}; USER_PASSWORD_AUTH allowed, for sibling services' tokens)`,
    );
    console.log(`  Captured mail and codes: ${url}__dev/mailbox/\n`);
  }

  let stopping = false;
  const shutDown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    // Stop accepting connections, let in-flight requests finish, then release the database and stand-ins.
    stopPurge();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await http.close();
    await database.close();
    await embedded?.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutDown("SIGTERM"));
  process.on("SIGINT", () => void shutDown("SIGINT"));
}

await main();
