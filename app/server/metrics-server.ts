import { type Server, createServer } from "node:http";
import { collectProcessMetrics, metricsExposition } from "~/integrations/metrics.server";
import { logger } from "~/integrations/logger.server";
import { applyServerTimeouts } from "./server-timeouts";

/**
 * The operators' metrics on a port of their own (METRICS_PORT), never on the public one: they show routes' traffic,
 * error rates and the jobs' progress, which are nobody else's business. `GET /metrics` answers Prometheus's text
 * format; anything else is 404.
 */
export async function startMetricsServer(host: string, port: number): Promise<Server> {
  collectProcessMetrics();
  const server = applyServerTimeouts(
    createServer((req, res) => {
      const path = (req.url ?? "/").split("?", 1)[0];
      if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found");
        return;
      }
      metricsExposition().then(
        ({ contentType, body }) => {
          res.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" });
          res.end(req.method === "HEAD" ? undefined : body);
        },
        (error: unknown) => {
          logger.error({ err: error }, "the metrics could not be collected");
          res.writeHead(500, { "Content-Type": "text/plain" }).end("Internal Server Error");
        },
      );
    }),
  );
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  return server;
}
