import { randomBytes, randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import type { ServerBuild } from "react-router";
import { type DatabaseHandle, isDatabaseReachable } from "~db/client.server";
import { ApiError } from "~/api/api-response.server";
import { largerPageBodyLimits } from "~/composition-root.server";
import { type Config, SIBLING_SERVICES } from "~/config.server";
import { isApiPath } from "~/routing/api-paths";
import { isJwksLoaded } from "~/integrations/cognito/cognito-jwks.server";
import { logger } from "~/integrations/logger.server";
import { countShedRequest, observeConcurrency, observeHttpRequest } from "~/integrations/metrics.server";
import type { DevToolSources, RequestInfo } from "~/router-context.server";
import { createApiChecks, sendApiError } from "./api-checks";
import { type Build, largeBodyGateOf, prepareBuild, requestContextFactory } from "./app-context";
import { createConcurrencyLimit } from "./concurrency-limit";
import { apiCors } from "./cors";
import { createPageChecks, sendText } from "./page-checks";
import { routeNamesByPattern } from "./route-names";
import { pathForLog, securityHeaders } from "./security-headers";

const BUILD_DIR = path.resolve("build");
/** Fingerprinted files never change under the same name; everything else in public/ may. */
const IMMUTABLE_MAX_AGE = "1y";
const PUBLIC_FILE_MAX_AGE = "1h";
/** Level 4: nearly the size of the default (6) on our HTML for a good deal less CPU per page. */
const COMPRESSION_LEVEL = 4;
/** Answers up to this size go out as they are: gzip would cost more CPU than it saves bytes. */
const COMPRESS_FROM_BYTES = 1024;
/** Where React Router's browser side asks for the routes of the paths it links to (its default). */
const ROUTE_DISCOVERY_PATH = "/__manifest";

declare module "express-serve-static-core" {
  interface Locals {
    requestInfo: RequestInfo;
    /** Whether the request is the API's: written as an API path, or matched among the API's routes. */
    apiRequest: boolean;
    /** Whether React Router will match the request among the API's routes (see routedPathOf). */
    routedToApi: boolean;
    /** The metrics' name for a request the HTTP layer answers itself (a health check, a static file). */
    ownRoute?: OwnRoute;
  }
}

/** What the metrics call the requests no route answers. */
type OwnRoute = "healthz" | "readyz" | "static-file";

/** The metrics' route for a request refused before any route ran (method, body, origin check, the API's CORS). */
const UNROUTED = "unrouted";

export interface HttpApp {
  /** node:http's request listener: the Express app. */
  listener: express.Express;
  /**
   * The shutdown's first step: /readyz/ answers 503 so that the load balancer stops sending requests here, and every
   * answer from now on says `Connection: close`, so that clients open their next connection elsewhere.
   */
  startDraining(): void;
  close(): Promise<void>;
}

/**
 * The HTTP layer: Express middleware in front of React Router's own Express adapter, which serves every page and
 * resource route (the API under /api/ included). In order: request id, nonce, security headers and the access log
 * line with the metrics (every answer has them); the health checks (never behind the concurrency limit); the
 * concurrency limit; compression; static files (Vite in development); a request target React Router could not
 * take is 400; then the API's checks or the pages' (origin check, methods, content types, body limits: all before
 * any route runs, so before any authentication); then React Router, given a URL built from APP_ORIGIN.
 */
export async function createHttpApp(
  config: Config,
  database: DatabaseHandle,
  devTools?: DevToolSources,
): Promise<HttpApp> {
  const app = express();
  app.disable("x-powered-by");
  // Client IPs come from X-Forwarded-For only through the configured number of trusted proxies: anyone can
  // write that header, so trusting more hops would let a client pick its own IP for the rate limits.
  app.set("trust proxy", config.trustProxyHops);
  const headers = securityHeaders(config);
  // Without a metrics port nothing reads the request metrics: requests then skip them altogether.
  const metricsOn = config.metricsPort !== undefined;
  let draining = false;

  /**
   * The metrics' route name for a finished request: the route React Router matched, else what the HTTP layer
   * answered itself. Null while the route names are not known yet (development's build loads in the background).
   */
  let routeNames: ReadonlyMap<string, string> | null = null;
  const routeNameOf = (req: express.Request, res: express.Response) => {
    const { routePattern } = res.locals.requestInfo;
    if (routePattern !== undefined) return routeNames?.get(routePattern) ?? UNROUTED;
    if (res.locals.ownRoute) return res.locals.ownRoute;
    return req.path === ROUTE_DISCOVERY_PATH ? "route-discovery" : UNROUTED;
  };

  /** Request id, nonce, security headers, the access log line and the metrics: the same for pages and the API. */
  const beginRequest: RequestHandler = (req, res, next) => {
    const startedAt = process.hrtime.bigint();
    const routedPath = routedPathOf(req.url, config.origin);
    // A path written as the API's ("/api/../x") is the API's even where it leads elsewhere: it gets the envelope.
    const api = isApiPath(routedPath ?? "") || isApiPath(decodedLowerCase(pathOf(req.url)) ?? "");
    res.locals.apiRequest = api;
    res.locals.routedToApi = isApiPath(routedPath ?? "");
    const requestInfo: RequestInfo = {
      requestId: randomUUID(),
      // JSON runs no script, so API answers need no nonce. Development's CSP allows inline code for Vite instead;
      // a nonce there would only upset hydration, because browsers hide nonces from the DOM only where the policy
      // uses them.
      nonce: !api && config.mode !== "dev" ? randomBytes(16).toString("base64") : "",
      clientIp: req.ip ?? "",
    };
    res.locals.requestInfo = requestInfo;
    res.setHeader("X-Request-Id", requestInfo.requestId);
    if (draining) res.setHeader("Connection", "close");
    const responseHeaders = api ? headers.forApi : headers.forPage(requestInfo.nonce);
    for (const name in responseHeaders) res.setHeader(name, responseHeaders[name]!);
    res.on("finish", () => {
      const durationMs = Number((process.hrtime.bigint() - startedAt) / 1000n) / 1000;
      logger.info(
        {
          requestId: requestInfo.requestId,
          method: req.method,
          path: pathForLog(pathOf(req.url)),
          status: res.statusCode,
          durationMs,
        },
        "request",
      );
      if (metricsOn) observeHttpRequest(routeNameOf(req, res), req.method, res.statusCode, durationMs / 1000);
    });
    next();
  };

  app.use(beginRequest);

  app.get("/healthz/", (_req, res) => {
    res.locals.ownRoute = "healthz";
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  app.get("/readyz/", async (_req, res) => {
    res.locals.ownRoute = "readyz";
    res.setHeader("Cache-Control", "no-store");
    if (draining) return void res.status(503).json({ status: "draining" });
    const [reachable, jwks] = await Promise.all([isDatabaseReachable(database.db), isJwksLoaded(config.cognito)]);
    const ready = reachable && jwks;
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "unavailable", database: reachable, jwks });
  });

  const limit = createConcurrencyLimit(config.concurrency, countShedRequest);
  observeConcurrency(limit);
  app.use(limit.middleware);

  // Downloads say `no-transform` (app/api/csv-response.server.ts), which compression() honours: they stream as
  // they are produced, never held back in gzip's window.
  app.use(compression({ level: COMPRESSION_LEVEL, threshold: COMPRESS_FROM_BYTES }));

  let closeVite = async () => {};
  let build: Build;
  if (config.mode === "dev") {
    const vite = await import("vite").then((module) =>
      module.createServer({ server: { middlewareMode: true }, appType: "custom" }),
    );
    app.use(vite.middlewares);
    build = () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
    closeVite = () => vite.close();
  } else {
    // Named for the metrics as a file is sent; a path that is no file goes on to React Router.
    const setHeaders = (res: express.Response) => void (res.locals.ownRoute = "static-file");
    app.use(
      "/assets",
      express.static(path.join(BUILD_DIR, "client/assets"), {
        immutable: true,
        maxAge: IMMUTABLE_MAX_AGE,
        setHeaders,
      }),
    );
    app.use(
      express.static(path.join(BUILD_DIR, "client"), {
        maxAge: PUBLIC_FILE_MAX_AGE,
        redirect: false,
        index: false,
        setHeaders,
      }),
    );
    build = (await import(pathToFileURL(path.join(BUILD_DIR, "server/index.js")).href)) as ServerBuild;
  }
  if (metricsOn) {
    // Development's build may change its routes on a reload; these names are the first build's.
    if (typeof build !== "function") routeNames = routeNamesByPattern(build);
    else {
      build().then(
        (loaded) => (routeNames = routeNamesByPattern(loaded)),
        // The page that fails to load shows the error; until a restart, the metrics name no route.
        (error: unknown) => logger.error({ err: error }, "the build's routes could not be named for the metrics"),
      );
    }
  }
  prepareBuild(build).catch((error: unknown) =>
    // The first page shows why the build did not load; a new password then starts the thread itself.
    logger.error({ err: error }, "the build could not be prepared"),
  );
  const contextFor = requestContextFactory(build, config, database.db, devTools);
  const largeBodyGate = largeBodyGateOf(build, contextFor);

  // Answered before the checks: React Router could not take these targets.
  app.use((req, res, next) => {
    if (routedPathOf(req.url, config.origin) !== null) return next();
    logger.warn({ requestId: res.locals.requestInfo.requestId }, "malformed request target or path");
    if (!req.complete) res.setHeader("Connection", "close");
    sendText(res, 400, "Bad Request");
  });
  const apiChecks = createApiChecks({
    origin: config.origin,
    largeBodyGate,
    // The API authenticates with bearer tokens only; browsers may call it from the sibling origins only.
    cors: apiCors(SIBLING_SERVICES.flatMap((service) => config.services[service].origin ?? [])),
  });
  const pageChecks = createPageChecks({
    origin: config.origin,
    largerBodyLimits: largerPageBodyLimits(),
    largeBodyGate,
  });
  app.use((req, res, next) => (res.locals.apiRequest ? apiChecks : pageChecks)(req, res, next));

  // React Router's adapter builds the request's URL from the Host header and, where the app trusts proxies,
  // X-Forwarded-Host and -Proto. In its own Express app, trusting them, it is handed our origin in all three, so
  // what React Router sees never depends on what the client sent (a missing Host, HTTP/1.0, or a forged one).
  const reactRouter = express();
  reactRouter.disable("x-powered-by");
  reactRouter.set("trust proxy", true);
  const origin = new URL(config.origin);
  reactRouter.use((req, _res, next) => {
    req.headers.host = origin.host;
    req.headers["x-forwarded-host"] = origin.host;
    req.headers["x-forwarded-proto"] = origin.protocol.slice(0, -1);
    next();
  });
  reactRouter.use(
    createRequestHandler({
      build,
      mode: config.mode === "dev" ? "development" : "production",
      getLoadContext: (_req, res) => contextFor(res.locals.requestInfo),
    }),
  );
  app.use(reactRouter);
  app.use(answerUnhandledError);

  return { listener: app, startDraining: () => void (draining = true), close: closeVite };
}

/**
 * The last word on an error nothing else answered: a client's error keeps its 4xx, anything else is a 500 (the
 * API's with its envelope); either way one structured log line, never a raw stack trace on stderr (Express's
 * default handler prints one).
 */
const answerUnhandledError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  const requestId = res.locals.requestInfo?.requestId;
  const status = httpStatusOf(error);
  if (status < 500) {
    logger.warn({ requestId, status, reason: String((error as Error)?.message ?? error) }, "request refused");
  } else logger.error({ err: error, requestId }, "request failed");
  if (res.headersSent) return void res.destroy();
  if (res.locals.apiRequest && status >= 500) {
    return void sendApiError(req, res, new ApiError("internal_error"), requestId ?? "");
  }
  sendText(res, status, STATUS_CODES[status] ?? "Error");
};

function httpStatusOf(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ??
    (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" && status >= 400 && status < 600 ? status : 500;
}

/** The request's path without its query string (which is never logged). */
function pathOf(target: string): string {
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function decodedLowerCase(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname).toLowerCase();
  } catch {
    return null;
  }
}

/**
 * The path as React Router matches it: resolved against our origin (dot segments removed), decoded, in any case.
 * Null for targets that are no path ("*", absolute forms) and for paths with a malformed percent-escape ("/%"),
 * which no route could be named by.
 */
function routedPathOf(target: string, origin: string): string | null {
  if (!target.startsWith("/")) return null;
  try {
    return decodedLowerCase(new URL(`${origin}${target}`).pathname);
  } catch {
    return null;
  }
}
