/**
 * The smallest server that answers `GET /api/user-devices` the way ours does, for tests/bench/api-devices.ts:
 * node:http alone (no Express, no React Router, no middleware, no access log), calling the very functions our
 * endpoint calls: verifyAccessToken (jose, cached JWKS of the stand-in's pool), then tokenStanding and
 * listActiveDevices on a database opened with openDatabase. It answers the same JSON with the same
 * Content-Type, Cache-Control and Content-Language; a refused token is a bare 401/503 (the benchmark never
 * measures one). Whatever our endpoint costs beyond this server is what our HTTP layer and API plumbing add.
 *
 * Configuration (set by the benchmark): PORT, HOST; COGNITO_ENDPOINT, COGNITO_REGION, COGNITO_USER_POOL_ID,
 * COGNITO_CLIENT_ID (our server's stand-in); DEVICE_LIMIT; DATABASE_URL (shared PostgreSQL) or DATA_DIR (its
 * own PGlite, since PGlite allows one process per data directory); MINIMAL_API_SESSION, a JSON SeedSession:
 * the session our server recorded, inserted here with startSession when this server has its own database.
 * GET /healthz answers 200 once all of that is done.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { openDatabase } from "~db/client.server";
import { describeDevice } from "~/domain/sessions/device-description.server";
import { parseConfig } from "~/config.server";
import { tokenStanding } from "~/domain/sessions/api-token-standing.server";
import { startSession } from "~/domain/sessions/device-admission.server";
import { listActiveDevices } from "~/domain/sessions/device-list.server";
import { localeFromAcceptLanguage } from "~/i18n/locales";
import { verifyAccessToken } from "~/integrations/cognito/access-token.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";

/** What the benchmark passes in MINIMAL_API_SESSION: our server's session row, to be recorded here the same way. */
export interface SeedSession {
  sub: string;
  email: string;
  deviceKey: string;
  userAgent: string;
  refreshToken: string;
  originJti: string;
  /** The row's last login time in our database, so both device lists are identical. */
  lastLoginAt: string;
}

/** The same pattern as app/api/bearer-auth.server.ts. */
const BEARER = /^Bearer\s+([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)\s*$/;

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const cognito = {
  region: requiredEnv("COGNITO_REGION"),
  userPoolId: requiredEnv("COGNITO_USER_POOL_ID"),
  clientId: requiredEnv("COGNITO_CLIENT_ID"),
  endpoint: requiredEnv("COGNITO_ENDPOINT"),
};
const deviceLimit = Number(process.env.DEVICE_LIMIT ?? 3);
const databaseUrl = process.env.DATABASE_URL || undefined;
const database = openDatabase({ databaseUrl, dataDir: requiredEnv("DATA_DIR") });
const { db } = database;

function sendJson(res: http.ServerResponse, status: number, body: unknown, locale: string) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Language": locale,
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

function sendStatus(res: http.ServerResponse, status: number) {
  res.writeHead(status, { "Content-Length": 0, "Cache-Control": "no-store" });
  res.end();
}

async function listDevices(req: http.IncomingMessage, res: http.ServerResponse) {
  const locale = localeFromAcceptLanguage(req.headers["accept-language"] ?? null);
  const token = BEARER.exec(req.headers.authorization ?? "")?.[1];
  if (!token) return sendStatus(res, 401);
  const check = await verifyAccessToken(token, cognito);
  if (!check.valid) return sendStatus(res, "unverifiable" in check ? 503 : 401);
  const { sub, originJti } = check.claims;
  const standing = await tokenStanding(db, check.claims);
  if (standing === "ended" || standing === "cancelled") return sendStatus(res, 401);
  const devices = await listActiveDevices(db, sub, { originJti: originJti ?? undefined });
  sendJson(
    res,
    200,
    {
      devices: devices.map((device) => ({
        key: device.deviceKey,
        name: device.deviceName,
        browser: device.browser,
        lastLoginAt: device.lastLoginAt.toISOString(),
        current: device.current,
      })),
      deviceLimit,
      overLimit: devices.length > deviceLimit,
    },
    locale,
  );
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const pathname = (req.url ?? "/").split("?")[0];
  if (req.method === "GET" && pathname === "/healthz") return sendStatus(res, 200);
  if ((req.method === "GET" || req.method === "HEAD") && pathname === "/api/user-devices") return listDevices(req, res);
  sendStatus(res, 404);
}

async function startServer() {
  await database.migrate();
  // A shared PostgreSQL already holds our server's row; an own PGlite gets the same one, through the same code.
  if (!databaseUrl) {
    const seed = JSON.parse(requiredEnv("MINIMAL_API_SESSION")) as SeedSession;
    const services = {
      db,
      identity: createIdentityProvider(cognito),
      config: { ...parseConfig({}), deviceLimit, sessionSecrets: [randomBytes(32).toString("base64url")] },
      clock: { now: () => new Date(seed.lastLoginAt) },
    };
    const result = await startSession(services, {
      sub: seed.sub,
      email: seed.email,
      deviceKey: seed.deviceKey,
      device: describeDevice(seed.userAgent),
      refreshToken: seed.refreshToken,
      originJti: seed.originJti,
      issuedAt: new Date(seed.lastLoginAt),
      overLimit: "refuse",
      clientIp: "192.0.2.1",
      passwordTyped: false,
    });
    if (result.kind !== "active") throw new Error(`could not record the session (${result.kind})`);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) sendStatus(res, 500);
      else res.destroy();
    });
  });
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });

  const stop = () => {
    server.closeIdleConnections();
    server.close(() => void database.close().finally(() => process.exit(0)));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await startServer();
