/**
 * Serves the minimal app's production build the way app/server/http-app.ts serves ours, minus everything
 * app-specific (request ids, nonces, security headers, access logs): express 5, compression, static files and
 * React Router's express handler. Started by tests/bench/measured-app.ts with PORT set; prints "ready at" when listening.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import { RouterContextProvider, type ServerBuild } from "react-router";

const BUILD_DIR = path.join(import.meta.dirname, "build");
const HOST = "127.0.0.1";

async function startServer() {
  const app = express();
  app.disable("x-powered-by");
  app.use(compression());
  app.use("/assets", express.static(path.join(BUILD_DIR, "client/assets"), { immutable: true, maxAge: "1y" }));
  app.use(express.static(path.join(BUILD_DIR, "client"), { maxAge: "1h", redirect: false }));
  const build = (await import(pathToFileURL(path.join(BUILD_DIR, "server/index.js")).href)) as ServerBuild;
  app.all(
    "/{*splat}",
    // The v8_middleware flag makes React Router require a RouterContextProvider as the load context.
    createRequestHandler({ build, mode: "production", getLoadContext: () => new RouterContextProvider() }),
  );

  const server = app.listen(Number(process.env.PORT ?? 0), HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(`minimal app ready at http://${HOST}:${port}/`);

  const stop = () => {
    server.closeIdleConnections();
    server.close(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await startServer();
