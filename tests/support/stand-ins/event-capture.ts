import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { appendFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import path from "node:path";
import { type JSONWebKeySet, createLocalJWKSet, decodeJwt, jwtVerify } from "jose";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { SIBLING_SERVICES, type SiblingService } from "~/config.server";
import type { CapturedSiblingDelivery } from "~/router-context.server";

/**
 * The development event capture: one HTTP server on loopback that stands in for the four sibling services' receivers,
 * a Standard Webhooks endpoint (/<service>/webhooks) and a back-channel logout URI (/<service>/logout) each. It checks
 * every delivery as the sibling would, answers as a real receiver (200, or 400 for a bad signature) and files it, one
 * JSON line each, in the data directory, where the app's /__dev/events/ page reads it. Development and preview only.
 */

export type { CapturedSiblingDelivery };

const DELIVERIES_FILE = "deliveries.jsonl";
/** Names the running receiver, so that an instance joining this one's stand-ins (same DATA_DIR) points there too. */
const RECEIVER_FILE = "receiver.json";
/** A delivery is an event or a token of a few hundred bytes: anything much larger is not ours. */
const MAX_BODY_BYTES = 256 * 1024;
const MAX_LISTED = 200;
const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** The headers worth showing: the rest (host, connection, …) says nothing about the delivery. */
const RECORDED_HEADERS = ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature"];

export function eventCaptureDirectory(dataDir: string): string {
  return path.resolve(dataDir, "event-capture");
}

export interface RunningEventCapture {
  url: string;
  stop(): Promise<void>;
}

export function webhookUrlOf(receiverUrl: string, service: SiblingService): string {
  return `${receiverUrl}/${service}/webhooks`;
}

export function logoutUriOf(receiverUrl: string, service: SiblingService): string {
  return `${receiverUrl}/${service}/logout`;
}

type Verdict = Pick<CapturedSiblingDelivery, "verdict" | "reason">;

function verifyWebhook(body: string, headers: Record<string, string>, secrets: string[]): Verdict {
  let reason = "no secret to verify with";
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, headers);
      return { verdict: "verified", reason: null };
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      reason = error.message;
    }
  }
  return { verdict: "rejected", reason };
}

function webhookEventOf(body: string): { type: string | null; id: string | null } {
  try {
    const event = JSON.parse(body) as { type?: unknown; id?: unknown };
    return {
      type: typeof event.type === "string" ? event.type : null,
      id: typeof event.id === "string" ? event.id : null,
    };
  } catch {
    return { type: null, id: null };
  }
}

/**
 * The app's published keys, fetched afresh for each token (a handful a day in development, and a key rotated in
 * the data directory is seen at once), or why they could not be had: then the token can be neither accepted nor refused.
 */
async function fetchAppKeys(jwksUrl: string): Promise<JSONWebKeySet | string> {
  try {
    const response = await fetch(jwksUrl, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) return `${jwksUrl} answered ${response.status}`;
    return (await response.json()) as JSONWebKeySet;
  } catch (error) {
    return `${jwksUrl} could not be read: ${(error as Error).message}`;
  }
}

/** OpenID Connect Back-Channel Logout 1.0, section 2.6: what a relying party checks before it ends a session. */
async function verifyLogoutToken(
  token: string,
  service: SiblingService,
  appOrigin: string,
): Promise<Verdict & { claims?: Record<string, unknown> }> {
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(token);
  } catch {
    return { verdict: "rejected", reason: "logout_token is not a JWT" };
  }
  const keys = await fetchAppKeys(`${appOrigin}/.well-known/jwks.json`);
  if (typeof keys === "string") return { verdict: "unverifiable", reason: keys, claims };
  try {
    await jwtVerify(token, createLocalJWKSet(keys), {
      issuer: appOrigin,
      audience: service,
      typ: "logout+jwt",
      algorithms: ["ES256"],
      requiredClaims: ["iat", "exp", "jti", "events"],
    });
  } catch (error) {
    return { verdict: "rejected", reason: (error as Error).message, claims };
  }
  const events = claims.events as Record<string, unknown> | undefined;
  if (typeof events?.[BACKCHANNEL_LOGOUT_EVENT] !== "object") {
    return { verdict: "rejected", reason: `events has no ${BACKCHANNEL_LOGOUT_EVENT}`, claims };
  }
  if (claims.sub === undefined && claims.sid === undefined) {
    return { verdict: "rejected", reason: "neither sub nor sid", claims };
  }
  if (claims.nonce !== undefined) return { verdict: "rejected", reason: "a logout token carries no nonce", claims };
  return { verdict: "verified", reason: null, claims };
}

async function readBody(request: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function recordedHeadersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

/** `/<service>/webhooks` or `/<service>/logout`, else null. */
function endpointOf(url: string): { service: SiblingService; channel: "webhook" | "logout" } | null {
  const match = /^\/([a-z]+)\/(webhooks|logout)\/?$/.exec(new URL(url, "http://receiver").pathname);
  const service = SIBLING_SERVICES.find((candidate) => candidate === match?.[1]);
  if (!match || !service) return null;
  return { service, channel: match[2] === "webhooks" ? "webhook" : "logout" };
}

/**
 * Starts the receiver. `webhookSecretsOf` gives the secrets the app signs a service's webhooks with (the ones the
 * environment sets, or the data directory's); logout tokens are checked against the keys the app itself publishes
 * at `appOrigin`/.well-known/jwks.json, with `appOrigin` as the issuer and the service's name as the audience.
 */
export async function startEventCapture(options: {
  directory: string;
  appOrigin: string;
  webhookSecretsOf: (service: SiblingService) => string[];
  port?: number;
}): Promise<RunningEventCapture> {
  await mkdir(options.directory, { recursive: true });
  const deliveriesFile = path.join(options.directory, DELIVERIES_FILE);

  async function receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const endpoint = endpointOf(request.url ?? "/");
    if (!endpoint) return void response.writeHead(404).end();
    if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
    const body = await readBody(request);
    if (body === null) return void response.writeHead(413).end();
    const headers = recordedHeadersOf(request);
    let delivery: Omit<CapturedSiblingDelivery, "id" | "receivedAt">;
    if (endpoint.channel === "webhook") {
      const event = webhookEventOf(body);
      delivery = {
        ...endpoint,
        type: event.type,
        eventId: headers["webhook-id"] ?? event.id,
        headers,
        body,
        ...verifyWebhook(body, headers, options.webhookSecretsOf(endpoint.service)),
      };
    } else {
      const token = new URLSearchParams(body).get("logout_token");
      const verdict = token
        ? await verifyLogoutToken(token, endpoint.service, options.appOrigin)
        : { verdict: "rejected" as const, reason: "no logout_token in the form body" };
      const jti = verdict.claims?.jti;
      delivery = { ...endpoint, type: null, eventId: typeof jti === "string" ? jti : null, headers, body, ...verdict };
    }
    const receivedAt = new Date().toISOString();
    await appendFile(deliveriesFile, `${JSON.stringify({ id: randomUUID(), receivedAt, ...delivery })}\n`);
    // As the sibling would: a bad signature is refused; keys that could not be fetched are our problem, not the sender's.
    response.writeHead(delivery.verdict === "rejected" ? 400 : 200, { "content-type": "text/plain" });
    response.end(delivery.verdict === "rejected" ? `rejected: ${delivery.reason}` : "ok");
  }

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end(`the event capture failed: ${(error as Error).message}`);
    });
  });
  server.listen(options.port ?? 0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const receiverFile = path.join(options.directory, RECEIVER_FILE);
  await writeFile(receiverFile, JSON.stringify({ url }));
  return {
    url,
    async stop() {
      await rm(receiverFile, { force: true });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL of the receiver another instance started on this data directory, or null when none is running. */
export async function readRunningReceiverUrl(directory: string): Promise<string | null> {
  try {
    return (JSON.parse(await readFile(path.join(directory, RECEIVER_FILE), "utf8")) as { url: string }).url;
  } catch {
    return null;
  }
}

/** The newest deliveries first; an empty list when nothing has arrived yet. */
export async function listCapturedDeliveries(
  directory: string,
  limit = MAX_LISTED,
): Promise<CapturedSiblingDelivery[]> {
  let text: string;
  try {
    text = await readFile(path.join(directory, DELIVERIES_FILE), "utf8");
  } catch {
    return [];
  }
  // A line still being appended has no newline yet: only complete lines are read.
  const lines = text.split("\n").slice(0, -1);
  return lines
    .slice(-limit)
    .reverse()
    .map((line) => JSON.parse(line) as CapturedSiblingDelivery);
}
