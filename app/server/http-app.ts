import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import compression from "compression";
import express from "express";
import proxyAddr from "proxy-addr";
import type { ServerBuild } from "react-router";
import { type DatabaseHandle, isDatabaseReachable } from "~db/client.server";
import { largerPageBodyLimits } from "~/composition-root.server";
import { type Config, SIBLING_SERVICES } from "~/config.server";
import { isApiPath } from "~/routing/api-paths";
import { isJwksLoaded } from "~/integrations/cognito/jwks.server";
import { logger } from "~/integrations/logger.server";
import { observeHttpRequest, observeRequestQueue } from "~/integrations/metrics.server";
import type { DevMailbox, RequestInfo } from "~/router-context.server";
import { createApiLane } from "./api-lane";
import { createRequestQueue } from "./request-queue";
import { wholeAnswerWriter } from "./write-body";
import { type Build, largeBodyGateOf, prepareBuild, requestContextFactory } from "./app-context";
import { ROUTE_DISCOVERY_PATH, answerUnhandledError, createPageLane, sendText } from "./page-lane";
import { routeNamesByPattern } from "./route-names";
import { apiCors } from "./cors";
import { isAllowedOrigin } from "./csrf";
import { pathForLog, securityHeaders } from "./security-headers";

const BUILD_DIR = path.resolve("build");
/** Fingerprinted files never change under the same name; everything else in public/ may. */
const IMMUTABLE_MAX_AGE = "1y";
const PUBLIC_FILE_MAX_AGE = "1h";

declare module "express-serve-static-core" {
  interface Locals {
    requestInfo: RequestInfo;
    /** The metrics' name for a request the HTTP layer answers itself (a health check, a static file). */
    ownRoute?: OwnRoute;
  }
}

const HEALTH_CHECK_PATHS = new Set(["/healthz/", "/readyz/"]);

/** What the metrics call the requests no route answers. */
type OwnRoute = "healthz" | "readyz" | "static-file";

/** The metrics' route for a request refused before any route ran (method, body, origin check, the API's CORS). */
const UNROUTED = "unrouted";

export interface HttpApp {
  /**
   * node:http's request listener: the member API's lane for /api/*, the pages' lane for page paths, Express for
   * static files and health checks (and, in development, everything Vite serves).
   */
  listener: RequestListener;
  /**
   * The shutdown's first step: /readyz/ answers 503 so that the load balancer stops sending requests here, and every
   * answer from now on says `Connection: close`, so that clients open their next connection elsewhere.
   */
  startDraining(): void;
  close(): Promise<void>;
}

/** Level 4: nearly the size of the default (6) on our HTML for a good deal less CPU per page. */
const COMPRESSION_LEVEL = 4;

/**
 * The HTTP layer in front of React Router: request ids and nonces, security headers, the origin check, compression,
 * static files, health checks and access logs. Pages themselves are React Router's, reached through the page lane
 * (page-lane.ts: methods, form bodies and their size checked first); the member API takes its own lane
 * (api-lane.ts) to the same React Router handler. Both lanes go from node:http straight to React Router: Express,
 * whose per-request work every page view would pay for, serves only files and health checks.
 */
export async function createHttpApp(
  config: Config,
  database: DatabaseHandle,
  devMailbox?: DevMailbox,
): Promise<HttpApp> {
  const app = express();
  app.disable("x-powered-by");
  // Client IPs come from X-Forwarded-For only through the configured number of trusted proxies: anyone can
  // write that header, so trusting more hops would let a client pick its own IP for the rate limits.
  app.set("trust proxy", config.trustProxyHops);
  const trustProxy = app.get("trust proxy fn") as Parameters<typeof proxyAddr>[1];
  const headers = securityHeaders(config);
  // Without a metrics port nothing reads the request metrics: requests then skip them altogether.
  const metricsOn = config.metricsPort !== undefined;
  let draining = false;

  /**
   * The metrics' route name for a finished request: the route React Router matched, else what the HTTP layer
   * answered itself. Null while the route names are not known yet (development's build loads in the background).
   */
  let routeNames: ReadonlyMap<string, string> | null = null;
  const routeNameOf = (req: IncomingMessage, res: ServerResponse, requestInfo: RequestInfo) => {
    if (requestInfo.routePattern !== undefined) return routeNames?.get(requestInfo.routePattern) ?? UNROUTED;
    const ownRoute = (res as Partial<express.Response>).locals?.ownRoute;
    if (ownRoute) return ownRoute;
    return pathOf(req) === ROUTE_DISCOVERY_PATH ? "route-discovery" : UNROUTED;
  };

  /** When each request that went through the queue arrived. */
  const arrivals = new WeakMap<IncomingMessage, bigint>();

  /** Request id, nonce, security headers, the access log line and the metrics: the same for pages and the API. */
  function beginRequest(req: IncomingMessage, res: ServerResponse, kind: "page" | "api"): RequestInfo {
    const requestInfo: RequestInfo = {
      requestId: randomUUID(),
      // JSON runs no script, so API answers need no nonce. Development's CSP allows inline code for Vite instead;
      // a nonce there would only upset hydration, because browsers hide nonces from the DOM only where the policy
      // uses them.
      nonce: kind === "page" && config.mode !== "dev" ? randomBytes(16).toString("base64") : "",
      clientIp: proxyAddr(req, trustProxy),
    };
    res.setHeader("X-Request-Id", requestInfo.requestId);
    if (draining) res.setHeader("Connection", "close");
    const responseHeaders = kind === "page" ? headers.forPage(requestInfo.nonce) : headers.forApi;
    for (const name in responseHeaders) res.setHeader(name, responseHeaders[name]!);
    // From the request's arrival, so that the log and the metrics count its wait in the queue too.
    const startedAt = arrivals.get(req) ?? process.hrtime.bigint();
    res.on("finish", () => {
      const durationMs = Number((process.hrtime.bigint() - startedAt) / 1000n) / 1000;
      logger.info(
        {
          requestId: requestInfo.requestId,
          method: req.method,
          path: pathForLog(pathOf(req)),
          status: res.statusCode,
          durationMs,
        },
        "request",
      );
      if (metricsOn) {
        observeHttpRequest(routeNameOf(req, res, requestInfo), req.method ?? "GET", res.statusCode, durationMs / 1000);
      }
    });
    return requestInfo;
  }

  /** Answers a state-changing request from another site with 403; true when it did. */
  const refusedCrossSite = (req: IncomingMessage, res: ServerResponse) => {
    const headers = { get: (name: string) => req.headers[name.toLowerCase()] as string | undefined };
    if (isAllowedOrigin(req.method ?? "GET", headers, config.origin)) return false;
    sendText(res, 403, "Forbidden: this request came from another site.");
    return true;
  };

  app.use((req, res, next) => {
    res.locals.requestInfo = beginRequest(req, res, "page");
    if (!refusedCrossSite(req, res)) next();
  });

  app.use(
    compression({
      level: COMPRESSION_LEVEL,
      // What Express answers itself (files, health checks; in development Vite's modules go as they are): the page
      // lane compresses its answers on its own, and never a download, which streams as it is produced (write-body.ts).
      filter: (req, res) => (res as express.Response).locals.ownRoute !== undefined && compression.filter(req, res),
    }),
  );

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
    // Named for the metrics as a file is sent; a path that is no file goes on to the pages.
    const setHeaders = (res: express.Response) => void (res.locals.ownRoute = "static-file");
    app.use(
      "/assets",
      express.static(path.join(BUILD_DIR, "client/assets"), {
        immutable: true,
        maxAge: IMMUTABLE_MAX_AGE,
        setHeaders,
      }),
    );
    const publicFiles = express.static(path.join(BUILD_DIR, "client"), {
      maxAge: PUBLIC_FILE_MAX_AGE,
      redirect: false,
      index: false,
      setHeaders,
    });
    app.use(publicFiles);
    build = (await import(pathToFileURL(path.join(BUILD_DIR, "server/index.js")).href)) as ServerBuild;
  }
  const mode = config.mode === "dev" ? "development" : "production";
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
  const contextFor = requestContextFactory(build, config, database.db, devMailbox);
  const largeBodyGate = largeBodyGateOf(build, contextFor);
  const writeWhole = wholeAnswerWriter(COMPRESSION_LEVEL);
  const pageLane = createPageLane({
    build,
    mode,
    origin: config.origin,
    contextFor,
    largerBodyLimits: largerPageBodyLimits(),
    largeBodyGate,
    writeWhole,
  });
  // A path no file or health check answered (in development, none of Vite's either) is a page's.
  app.use((req, res) => void pageLane(req, res, res.locals.requestInfo));
  app.use(answerUnhandledError);

  const apiLane = createApiLane({
    build,
    mode,
    origin: config.origin,
    contextFor,
    largeBodyGate,
    // The API authenticates with bearer tokens only and reads no cookie, so the pages' origin check has nothing
    // to protect there; browsers may call it from the sibling origins only (CORS).
    cors: apiCors(SIBLING_SERVICES.flatMap((service) => config.services[service].origin ?? [])),
    beginRequest: (req, res) => beginRequest(req, res, "api"),
    writeWhole,
  });

  const servePage = (req: IncomingMessage, res: ServerResponse) => {
    const requestInfo = beginRequest(req, res, "page");
    if (!refusedCrossSite(req, res)) void pageLane(req, res, requestInfo);
  };
  // With no directory indexes, no path ending in "/" names a file, and every page's path does: those go straight
  // to the page lane. In development Vite's middleware comes first for every path.
  const pagesSkipExpress = config.mode !== "dev";

  const queue = createRequestQueue(config.requestQueue);
  observeRequestQueue(queue);
  const listener: RequestListener = (req, res) => {
    const requestPath = pathOf(req);
    // A load balancer's health checks are answered at once, never behind the queue's pages.
    if (HEALTH_CHECK_PATHS.has(requestPath)) return void app(req, res);
    arrivals.set(req, process.hrtime.bigint());
    queue.admit(res, () => {
      if (isApiPath(requestPath)) {
        return void apiLane(req, res).catch((error: unknown) => {
          // The lane answers its own failures with the envelope; this is one that left no way to answer.
          logger.error({ err: error }, "the API lane could not answer");
          res.destroy();
        });
      }
      if (pagesSkipExpress && requestPath.endsWith("/")) return servePage(req, res);
      app(req, res);
    });
  };
  return { listener, startDraining: () => void (draining = true), close: closeVite };
}

/** The request's path without its query string (which is never logged). */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}
