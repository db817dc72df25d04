/**
 * The server process: `npm run dev` (Vite, embedded defaults), `npm run preview` (the production build on
 * embedded defaults) and `npm start` (the production build on real configuration only).
 */
import { type Server, createServer } from "node:http";
import { openDatabase, setDatabase } from "../../db/client.server";
import { APP_MODES, type AppMode, ConfigError, parseConfig } from "~/config.server";
import { schedulePurge } from "~/domain/purge.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import { logger } from "~/integrations/logger.server";
import { type EmbeddedStack } from "./embedded/embedded-stack";
import { createHttpApp } from "./http-app";
import { applyServerTimeouts } from "./server-timeouts";

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

function modeFromArguments(argv: string[]): AppMode {
  const value = argv.find((argument) => argument.startsWith("--mode="))?.slice("--mode=".length);
  return (APP_MODES as readonly string[]).includes(value ?? "") ? (value as AppMode) : "dev";
}

async function main() {
  const mode = modeFromArguments(process.argv);
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

  let config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    await embedded?.stop();
    if (error instanceof ConfigError) {
      console.error(`${error.message}\nSee the README's configuration table.`);
      process.exit(1);
    }
    throw error;
  }

  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await database.migrate();
  setDatabase(database);
  // Retention and the two-systems repairs (owed Cognito deletions and revocations); see app/domain/purge.server.ts.
  schedulePurge({ db: database.db, identity: getIdentityProvider(), secrets: config.sessionSecrets });

  const http = await createHttpApp(config);
  const server: Server = applyServerTimeouts(createServer(http.listener)).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info({ mode, port, database: database.kind }, "server started");
  const url = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}/`;
  console.log(`\n  Member account (${mode}) ready at ${url}`);
  if (embedded) {
    console.log(`  Development admin: ${embedded.admin.email} / ${embedded.admin.password}`);
    console.log(`  Cognito stand-in (AWS SDK endpoint): ${embedded.env.COGNITO_ENDPOINT}`);
    console.log(`  Captured mail and codes: ${url}__dev/mailbox/\n`);
  }

  let stopping = false;
  const shutDown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    // Stop accepting connections, let in-flight requests finish, then release the database and stand-ins.
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
