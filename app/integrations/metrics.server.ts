/**
 * The operators' metrics (Prometheus text, prom-client), served on METRICS_PORT only (app/server/metrics-server.ts).
 * Everything else records through the small functions below, never through prom-client itself, so that what is
 * measured and under which labels stays in this one file. Labels are bounded sets: route names, operation names,
 * policy names, outcomes; never a path, an address, an id or a member's sub.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Seconds: a page takes milliseconds; the HTTP layer's own timeout is 30 s. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a Cognito call takes tens of milliseconds, and at most COGNITO_CALL_DEADLINE_MS (8 s). */
const COGNITO_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8];
/** Seconds: most queries take a millisecond or two; the pool's statement timeout is 10 s. */
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

function createMetrics() {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    httpRequests: new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP requests by route name, method and status, from the request's arrival to its response's end.",
      labelNames: ["route", "method", "status"] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    cognitoCalls: new Histogram({
      name: "cognito_call_duration_seconds",
      help: "Cognito calls by operation and outcome (success, or the app's error code), retries included.",
      labelNames: ["operation", "outcome"] as const,
      buckets: COGNITO_BUCKETS,
      registers,
    }),
    databaseQueries: new Histogram({
      name: "db_query_duration_seconds",
      help: "Database queries of the app's Drizzle instance, from being asked for (waiting for a connection included) to their result.",
      labelNames: ["outcome"] as const,
      buckets: QUERY_BUCKETS,
      registers,
    }),
    databaseQueriesInFlight: new Gauge({
      name: "db_queries_in_flight",
      help: "Queries asked for and not yet answered: running, or waiting for one of the pool's connections.",
      registers,
    }),
    databasePoolSize: new Gauge({
      name: "db_pool_max_connections",
      help: "Connections the pool may open (PGlite: 1, one connection for the whole process).",
      registers,
    }),
    rateLimitRefusals: new Counter({
      name: "rate_limit_refusals_total",
      help: "Attempts refused by a rate limit, by policy (README: the rate limits' table).",
      labelNames: ["policy"] as const,
      registers,
    }),
    mail: new Counter({
      name: "mail_deliveries_total",
      help: "The app's own mail handed to SMTP, by kind and outcome (sent, failed).",
      labelNames: ["kind", "outcome"] as const,
      registers,
    }),
    mailAbandoned: new Counter({
      name: "mail_abandoned_total",
      help: "Outbox mails given up after their last attempt.",
      registers,
    }),
    accountEventDeliveries: new Counter({
      name: "account_event_deliveries_total",
      help: "Account event deliveries to sibling services this process attempted or settled, by service, channel (webhook, logout), event type and outcome (delivered; retry: failed, to be tried again; failed: given up, or its endpoint disabled).",
      labelNames: ["service", "channel", "type", "outcome"] as const,
      registers,
    }),
    csvImportRows: new Counter({
      name: "csv_import_rows_total",
      help: "CSV import rows this process settled, by outcome (created, failed, retried later, skipped).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    jobRuns: new Counter({
      name: "job_runs_total",
      help: "Scheduled job runs in this process, by job (purge, reconcile, staff-group-check, factors) and outcome.",
      labelNames: ["job", "outcome"] as const,
      registers,
    }),
    requestsWaiting: new Gauge({
      name: "http_requests_waiting",
      help: "Requests waiting for a place under the concurrency limit (app/server/concurrency-limit.ts).",
      registers,
    }),
    requestsInProgress: new Gauge({
      name: "http_requests_in_progress",
      help: "Requests in progress under the concurrency limit (at most REQUESTS_IN_PROGRESS_MAX).",
      registers,
    }),
    requestsShed: new Counter({
      name: "http_requests_shed_total",
      help: "Requests answered 503 by the concurrency limit: its waiting list was full or they waited too long.",
      registers,
    }),
    jobLastSuccess: new Gauge({
      name: "job_last_success_timestamp_seconds",
      help: "When a job last finished its work in this process (Unix time).",
      labelNames: ["job"] as const,
      registers,
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics> & { concurrency?: ConcurrencyDepth };

/** What the HTTP layer's concurrency limit tells about itself. */
interface ConcurrencyDepth {
  readonly inProgress: number;
  readonly waiting: number;
}

// The HTTP server and the React Router build load this module as two separate copies (two module graphs); both
// must record into one registry, so it lives on globalThis (as the router context's shared keys do).
const METRICS_KEY = Symbol.for("member-account.metrics");
const metrics: Metrics = ((globalThis as unknown as Record<symbol, Metrics | undefined>)[METRICS_KEY] ??=
  createMetrics());

/**
 * The methods the `method` label names: HTTP's own (RFC 9110, and PATCH). Node's parser takes some 34 (WebDAV's
 * PROPFIND, MKCOL, …), and anyone may send them: each would be a series of its own, so they all count as `OTHER`.
 */
const LABELLED_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/** One answered HTTP request. `route` is a route name (or the HTTP layer's name for what no route answered). */
export function observeHttpRequest(route: string, method: string, status: number, seconds: number): void {
  metrics.httpRequests.observe({ route, method: LABELLED_METHODS.has(method) ? method : "OTHER", status }, seconds);
}

/** Starts timing a Cognito call; the returned function records it with its outcome. */
export function timeCognitoCall(operation: string): (outcome: string) => void {
  const end = metrics.cognitoCalls.startTimer({ operation });
  return (outcome) => void end({ outcome });
}

/** Times one database query from now until `query` settles (which it is made to do: see db/client.server.ts). */
export function observeQuery(query: PromiseLike<unknown>): void {
  const end = metrics.databaseQueries.startTimer();
  metrics.databaseQueriesInFlight.inc();
  query.then(
    () => {
      metrics.databaseQueriesInFlight.dec();
      end({ outcome: "success" });
    },
    () => {
      metrics.databaseQueriesInFlight.dec();
      end({ outcome: "error" });
    },
  );
}

export function setDatabasePoolSize(connections: number): void {
  metrics.databasePoolSize.set(connections);
}

export function countRateLimitRefusal(policy: string): void {
  metrics.rateLimitRefusals.inc({ policy });
}

export function countMailDelivery(kind: string, outcome: "sent" | "failed"): void {
  metrics.mail.inc({ kind, outcome });
}

export function countAbandonedMail(): void {
  metrics.mailAbandoned.inc();
}

export function countAccountEventDelivery(
  labels: { service: string; channel: string; type: string },
  outcome: "delivered" | "retry" | "failed",
): void {
  metrics.accountEventDeliveries.inc({ ...labels, outcome });
}

export function countCsvImportRow(outcome: "created" | "failed" | "retried" | "skipped"): void {
  metrics.csvImportRows.inc({ outcome });
}

/** One run of a scheduled job; `worked` when this process did the job's work (not another instance, not a failure). */
export function countJobRun(
  job: "purge" | "reconcile" | "staff-group-check" | "factors",
  outcome: string,
  worked: boolean,
): void {
  metrics.jobRuns.inc({ job, outcome });
  if (worked) metrics.jobLastSuccess.set({ job }, Date.now() / 1000);
}

/** The HTTP layer's concurrency limit, read at each scrape (nothing is recorded per request). */
export function observeConcurrency(limit: ConcurrencyDepth): void {
  metrics.concurrency = limit;
}

/** A request the concurrency limit answered 503. */
export function countShedRequest(): void {
  metrics.requestsShed.inc();
}

let collectingProcessMetrics = false;

/**
 * prom-client's default metrics (CPU, memory, heap, event-loop lag, GC, handles), prefixed `process_`/`nodejs_`.
 * They sample the event loop and observe GC, so only a process that serves metrics collects them.
 */
export function collectProcessMetrics(): void {
  if (collectingProcessMetrics) return;
  collectingProcessMetrics = true;
  collectDefaultMetrics({ register: metrics.registry });
}

/** The exposition: every metric in Prometheus's text format. */
export async function metricsExposition(): Promise<{ contentType: string; body: string }> {
  if (metrics.concurrency) {
    metrics.requestsWaiting.set(metrics.concurrency.waiting);
    metrics.requestsInProgress.set(metrics.concurrency.inProgress);
  }
  return { contentType: metrics.registry.contentType, body: await metrics.registry.metrics() };
}
