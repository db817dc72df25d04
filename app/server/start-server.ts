/**
 * The server process's life: configuration, the Cognito pool check, the database, the background jobs, the HTTP
 * server and its shutdown. Started by main.ts (`npm start`) or, on the development stand-ins, by dev-entry.ts
 * (`npm run dev`, `npm run preview`).
 */
import { type Server, createServer } from "node:http";
import { openDatabase } from "../../db/client.server";
import { type AppMode, type Config, ConfigError, parseConfig } from "~/config.server";
import { identityPoolProblemsOf, serverJobs } from "~/composition-root.server";
import { logger } from "~/integrations/logger.server";
import { observeQuery, setDatabasePoolSize } from "~/integrations/metrics.server";
import type { DevMailbox } from "~/router-context.server";
import { createHttpApp } from "./http-app";
import { startMetricsServer } from "./metrics-server";
import { refuseToStart } from "./refuse-to-start";
import { applyServerTimeouts } from "./server-timeouts";

/** How long in-flight requests get to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

/** What dev and preview get from the development stand-ins instead of real configuration. */
export interface StandIns {
  /** Environment values that point the app at the stand-ins. */
  env: Record<string, string>;
  admin: { email: string; password: string };
  mailbox: DevMailbox;
  stop(): Promise<void>;
}

export async function startServer(mode: AppMode, standIns?: StandIns): Promise<void> {
  process.env.APP_MODE = mode;
  if (standIns) Object.assign(process.env, standIns.env);

  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    await standIns?.stop();
    if (!(error instanceof ConfigError)) throw error;
    refuseToStart("Invalid configuration:", error.problems, "the README's configuration table");
  }

  // Every mode checks the pool: production's is real Cognito; dev and preview prove the stand-in is provisioned alike.
  const poolProblems = await identityPoolProblemsOf(config);
  if (poolProblems.length > 0) {
    await standIns?.stop();
    refuseToStart(
      `The Cognito user pool ${config.cognito.userPoolId} and app client do not meet the deployment contract:`,
      poolProblems,
      "docs/deployment.md, the Cognito deployment contract",
    );
  }

  // Queries are timed only for a server that serves metrics: without one nothing would read the timings.
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    observeQuery: config.metricsPort ? observeQuery : undefined,
  });
  setDatabasePoolSize(database.maxConnections);
  await database.migrate();
  // The background jobs, listed in app/composition-root.server.ts.
  const stopJobs = serverJobs(config, database.db).map((job) => job.start());

  const http = await createHttpApp(config, database, standIns?.mailbox);
  const server: Server = applyServerTimeouts(createServer(http.listener)).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  // On the same interface as the app (a scraper in the same network reaches it) but its own port, which the load
  // balancer must not forward (docs/deployment.md).
  const metricsServer = config.metricsPort ? await startMetricsServer(config.host, config.metricsPort) : undefined;
  logger.info(
    { mode, host: config.host, port, metricsPort: config.metricsPort, database: database.kind },
    "server started",
  );
  // The origin the app puts in links and checks posts against: announcing it makes the three agree.
  const url = `${config.origin}/`;
  console.log(`\n  Member account (${mode}) ready at ${url}`);
  if (standIns) {
    console.log(`  Development admin: ${standIns.admin.email} / ${standIns.admin.password}`);
    console.log(`  Cognito stand-in (AWS SDK endpoint): ${standIns.env.COGNITO_ENDPOINT}`);
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
    for (const stop of stopJobs) await stop();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    metricsServer?.closeAllConnections();
    metricsServer?.close();
    await http.close();
    await database.close();
    await standIns?.stop();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutDown("SIGTERM"));
  process.on("SIGINT", () => void shutDown("SIGINT"));
}
