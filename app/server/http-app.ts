import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express, { type Express } from "express";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { isDatabaseReachable } from "../../db/client.server";
import { type Config, SIBLING_SERVICES } from "~/config.server";
import { isApiPath } from "~/routing/api-paths";
import { isJwksLoaded } from "~/integrations/cognito/jwks.server";
import { logger } from "~/integrations/logger.server";
import { requestInfoContext, type RequestInfo } from "./request-context";
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
  }
}

export interface HttpApp {
  app: Express;
  close(): Promise<void>;
}

/**
 * The HTTP layer in front of React Router: request ids and nonces, security headers, compression, static
 * files, health checks and access logs. Pages themselves are React Router's.
 */
export async function createHttpApp(config: Config): Promise<HttpApp> {
  const app = express();
  app.disable("x-powered-by");
  // Client IPs come from X-Forwarded-For only through the configured number of trusted proxies (SECURITY.md 3).
  app.set("trust proxy", config.trustProxyHops);

  app.use((req, res, next) => {
    const requestInfo: RequestInfo = {
      requestId: randomUUID(),
      // Development's CSP allows inline code for Vite instead; a nonce there would only upset hydration, because
      // browsers hide nonces from the DOM only where the policy uses them.
      nonce: config.mode === "dev" ? "" : randomBytes(16).toString("base64"),
      clientIp: req.ip ?? req.socket.remoteAddress ?? "",
    };
    res.locals.requestInfo = requestInfo;
    res.setHeader("X-Request-Id", requestInfo.requestId);
    for (const [name, value] of Object.entries(securityHeaders(config, requestInfo.nonce))) res.setHeader(name, value);
    const startedAt = process.hrtime.bigint();
    res.on("finish", () => {
      logger.info(
        {
          requestId: requestInfo.requestId,
          method: req.method,
          path: pathForLog(req.path),
          status: res.statusCode,
          durationMs: Number((process.hrtime.bigint() - startedAt) / 1000n) / 1000,
        },
        "request",
      );
    });
    next();
  });

  app.use(
    "/api",
    apiCors(SIBLING_SERVICES.flatMap((service) => config.services[service].origin ?? [])),
  );

  app.use((req, res, next) => {
    // The API authenticates with bearer tokens only and reads no cookie, so a cross-site request cannot act for
    // anyone: there is nothing for the origin check to protect, and sibling services must be able to call it.
    if (isApiPath(req.path)) return next();
    if (isAllowedOrigin(req.method, { get: (name) => req.get(name) }, config.origin)) return next();
    res.status(403).type("text/plain").send("Forbidden: this request came from another site.");
  });

  // Level 4: nearly the size of the default (6) on our HTML for a good deal less CPU per page.
  app.use(compression({ level: 4 }));

  app.get("/healthz/", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });
  app.get("/readyz/", async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    const [database, jwks] = await Promise.all([isDatabaseReachable(), isJwksLoaded(config.cognito)]);
    const ready = database && jwks;
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "unavailable", database, jwks });
  });

  let closeVite = async () => {};
  let build: ServerBuild | (() => Promise<ServerBuild>);
  if (config.mode === "dev") {
    const vite = await import("vite").then((module) =>
      module.createServer({ server: { middlewareMode: true }, appType: "custom" }),
    );
    app.use(vite.middlewares);
    build = () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
    closeVite = () => vite.close();
  } else {
    app.use(
      "/assets",
      express.static(path.join(BUILD_DIR, "client/assets"), { immutable: true, maxAge: IMMUTABLE_MAX_AGE }),
    );
    const publicFiles = express.static(path.join(BUILD_DIR, "client"), { maxAge: PUBLIC_FILE_MAX_AGE, redirect: false });
    // No file lives under /api/: a disk look-up per API call would only cost a failed stat.
    app.use((req, res, next) => (isApiPath(req.path) ? next() : publicFiles(req, res, next)));
    build = (await import(pathToFileURL(path.join(BUILD_DIR, "server/index.js")).href)) as ServerBuild;
  }

  app.all(
    "/{*splat}",
    createRequestHandler({
      build,
      mode: config.mode === "dev" ? "development" : "production",
      getLoadContext: (_req, res) => new RouterContextProvider(new Map([[requestInfoContext, res.locals.requestInfo]])),
    }),
  );

  return { app, close: closeVite };
}
