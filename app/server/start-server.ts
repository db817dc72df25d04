/**
 * The server process's life: configuration, the Cognito pool check, the database, the background jobs, the HTTP
 * server and its shutdown. Started by main.ts (`npm start`) or, on the development stand-ins, by dev-entry.ts
 * (`npm run dev`, `npm run preview`).
 */
import { type Server, createServer } from "node:http";
import path from "node:path";
import { openDatabase } from "~db/client.server";
import { type AppMode, type Config, ConfigError, SIBLING_SERVICES, parseConfig } from "~/config.server";
import { identityPoolProblemsOf, logoutSigningKeyProblemsOf, serverJobs } from "~/composition-root.server";
import { logger } from "~/integrations/logger.server";
import { observeQuery, setDatabasePoolSize } from "~/integrations/metrics.server";
import type { DevToolSources } from "~/router-context.server";
import { createHttpApp } from "./http-app";
import { startMetricsServer } from "./metrics-server";
import { refusePortInUse, refuseToStart } from "./refuse-to-start";
import { applyServerTimeouts } from "./server-timeouts";

/** How long in-flight requests get to finish after the drain (SHUTDOWN_DRAIN_SECONDS) before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** While closing, how often connections that have become idle (their last answer sent) are closed. */
const IDLE_SWEEP_MS = 100;

/** What dev and preview get from the development stand-ins instead of real configuration. */
export interface StandIns extends DevToolSources {
  /** Environment values that point the app at the stand-ins, used where the environment leaves them unset. */
  env: Record<string, string>;
  /** The development admin: null for an instance that joined stand-ins started elsewhere with another DATA_DIR. */
  admin: { email: string; password: string } | null;
  stop(): Promise<void>;
}

/**
 * Gives `env` the stand-ins' settings it leaves unset (absent or empty); what it sets is kept. An operator's setting
 * always wins: instances given one SESSION_SECRETS share sessions whatever their data directories generated.
 */
export function fillUnsetSettings(env: NodeJS.ProcessEnv, standInSettings: Record<string, string>): void {
  for (const [name, value] of Object.entries(standInSettings)) {
    if (!env[name]) env[name] = value;
  }
}

/**
 * What a sibling service in development needs to hear this instance: its webhook URL and secrets, its logout URI,
 * its feed token, and where the logout tokens' keys are published.
 */
function siblingServiceLines(config: Config): string[] {
  const lines = SIBLING_SERVICES.map((service) => {
    const { webhook, logoutUri, feedTokens } = config.siblingEvents[service];
    return (
      `${service}: webhook ${webhook ? `${webhook.url} (secret ${webhook.secrets.join(" ")})` : "none"}, ` +
      `logout URI ${logoutUri ?? "none"}, feed token ${feedTokens.join(" ") || "none"}`
    );
  });
  lines.push(
    `feed: ${config.origin}/api/events with Authorization: Bearer <feed token>; ` +
      `logout tokens' keys: ${config.origin}/.well-known/jwks.json`,
  );
  return lines;
}

export async function startServer(mode: AppMode, standIns?: StandIns): Promise<void> {
  process.env.APP_MODE = mode;
  if (standIns) fillUnsetSettings(process.env, standIns.env);

  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (error) {
    await standIns?.stop();
    if (!(error instanceof ConfigError)) throw error;
    refuseToStart("Invalid configuration:", error.problems, "the README's configuration table");
  }

  // Production's configuration requires the keys with a logout URI; this also reads them, in every mode.
  const signingKeyProblems = logoutSigningKeyProblemsOf(config);
  if (signingKeyProblems.length > 0) {
    await standIns?.stop();
    refuseToStart("Logout tokens cannot be signed:", signingKeyProblems, "the README's configuration table");
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

  const http = await createHttpApp(config, database, standIns);
  const server: Server = applyServerTimeouts(createServer(http.listener));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
      server.listen(config.port, config.host);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
    await standIns?.stop();
    refusePortInUse({ host: config.host, port: config.port });
  }
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
  if (metricsServer) console.log(`  Metrics: http://${config.host}:${config.metricsPort}/metrics`);
  if (standIns) {
    console.log(
      standIns.admin
        ? `  Development admin: ${standIns.admin.email} / ${standIns.admin.password}`
        : "  Development admin: the one of the instance that started the stand-ins (its DATA_DIR's dev-admin.json)",
    );
    console.log(`  Cognito stand-in (AWS SDK endpoint): ${config.cognito.endpoint}`);
    console.log(
      `  Cognito user pool id: ${config.cognito.userPoolId}, app client id: ${config.cognito.clientId} ` +
        `(region ${config.cognito.region}; USER_PASSWORD_AUTH allowed, for sibling services' tokens), ` +
        `staff app client id: ${config.cognito.staffClientId ?? "none"}, ` +
        `server-only app client id: ${config.cognito.serverClientId ?? "none"}`,
    );
    console.log(`  SMTP capture: ${config.smtpUrl}`);
    console.log(`  Captured mail and codes: ${url}__dev/mailbox/`);
    console.log(`  Sibling services' events as received, signatures checked: ${url}__dev/events/`);
    for (const line of siblingServiceLines(config)) console.log(`    ${line}`);
    // Everything a second instance needs to run as one with this one (README: Two instances on one stand-in).
    const join = [
      `COGNITO_ENDPOINT=${config.cognito.endpoint}`,
      `COGNITO_USER_POOL_ID=${config.cognito.userPoolId}`,
      `COGNITO_CLIENT_ID=${config.cognito.clientId}`,
      `COGNITO_STAFF_CLIENT_ID=${config.cognito.staffClientId ?? ""}`,
      `COGNITO_SERVER_CLIENT_ID=${config.cognito.serverClientId ?? ""}`,
      `SMTP_URL=${config.smtpUrl}`,
      `DATA_DIR=${path.resolve(config.dataDir)}`,
      `DATABASE_URL=${config.databaseUrl ? "<the same PostgreSQL>" : "<a PostgreSQL, given to both>"}`,
    ];
    console.log(`  Another instance on the same stand-ins: ${join.join(" ")} PORT=<another> npm run ${mode}\n`);
  }

  let stopping = false;
  const shutDown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, drainMs: config.shutdownDrainMs }, "shutting down");
    setTimeout(() => process.exit(1), config.shutdownDrainMs + SHUTDOWN_GRACE_MS).unref();
    // Not ready first, while still serving, until the load balancer has seen it and sends nothing new; the jobs hand
    // their work over meanwhile (the import worker finishes its creations in flight and releases its rows' leases).
    http.startDraining();
    await Promise.all([
      new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs)),
      ...stopJobs.map((stop) => stop()),
    ]);
    // Then refuse new connections and let requests in flight finish. A keep-alive connection is closed as soon as
    // it is idle, also one whose answer was already under way when the drain began (sent without Connection: close).
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    await closed;
    clearInterval(sweep);
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
