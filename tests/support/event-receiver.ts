/**
 * A sibling service's receiver, run as a process of its own (event-receiver-process.ts starts it), that checks what
 * the app pushes the way a sibling would: each webhook with the `standardwebhooks` reference library, for every
 * secret the service has, and each back-channel logout token with `jose` against the app's published keys. It keeps
 * what it got (GET /__received) and answers as told (POST /__answers: the next statuses of a service's channel,
 * 200 after them, and how long to hold each answer back, as a slow receiver does).
 *
 * Configuration: EVENT_RECEIVER_CONFIG = {"issuer", "jwksUrl", "secrets": {"<service>": ["whsec_…"]}}, PORT (0: any).
 * Endpoints: POST /<service>/webhook and POST /<service>/logout.
 */
import { createServer } from "node:http";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { Webhook } from "standardwebhooks";

const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

interface ReceiverConfig {
  issuer: string;
  jwksUrl: string;
  secrets: Record<string, string[]>;
}

export interface ReceivedDelivery {
  service: string;
  channel: "webhook" | "logout";
  /** Whether every check passed (every secret's signature, or the token's signature and claims). */
  verified: boolean;
  problem: string | null;
  /** The status this receiver answered. */
  answered: number;
  /** Webhook: its headers and parsed body. */
  webhookId?: string;
  webhookTimestamp?: string;
  signatures?: number;
  body?: Record<string, unknown>;
  /** Logout: the token's header and claims (whether or not they verified). */
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
}

const config = JSON.parse(process.env.EVENT_RECEIVER_CONFIG ?? "{}") as ReceiverConfig;
const jwks = createRemoteJWKSet(new URL(config.jwksUrl));
const received: ReceivedDelivery[] = [];
const scripted = new Map<string, number[]>();
const delays = new Map<string, number>();

function checkWebhook(service: string, body: string, headers: Record<string, string>): Partial<ReceivedDelivery> {
  const secrets = config.secrets[service] ?? [];
  let problem: string | null = secrets.length === 0 ? "no secret for this service" : null;
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, headers);
    } catch (error) {
      problem = `${secret.slice(0, 10)}…: ${(error as Error).message}`;
    }
  }
  return {
    verified: problem === null,
    problem,
    webhookId: headers["webhook-id"],
    webhookTimestamp: headers["webhook-timestamp"],
    signatures: (headers["webhook-signature"] ?? "").split(" ").filter(Boolean).length,
    body: JSON.parse(body) as Record<string, unknown>,
  };
}

async function checkLogoutToken(service: string, body: string, contentType: string) {
  const token = new URLSearchParams(body).get("logout_token") ?? "";
  const found: Partial<ReceivedDelivery> = {};
  try {
    found.header = decodeProtectedHeader(token) as Record<string, unknown>;
    const { payload } = await jwtVerify(token, jwks, {
      issuer: config.issuer,
      audience: service,
      typ: "logout+jwt",
      algorithms: ["ES256"],
      requiredClaims: ["iat", "exp", "jti", "sub", "sid", "events"],
    });
    found.claims = payload as Record<string, unknown>;
    const events = payload.events as Record<string, unknown> | undefined;
    const problem = !contentType.startsWith("application/x-www-form-urlencoded")
      ? `content type ${contentType}`
      : "nonce" in payload
        ? "a nonce is present"
        : typeof events?.[BACKCHANNEL_LOGOUT_EVENT] !== "object"
          ? "no back-channel logout event"
          : null;
    return { ...found, verified: problem === null, problem };
  } catch (error) {
    return { ...found, verified: false, problem: (error as Error).message };
  }
}

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => (body += chunk));
  request.on("end", () => {
    void (async () => {
      const path = request.url ?? "/";
      if (request.method === "GET" && path === "/__received") {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(received));
        return;
      }
      if (request.method === "POST" && path === "/__answers") {
        const { service, channel, statuses, delayMs } = JSON.parse(body) as {
          service: string;
          channel: string;
          statuses: number[];
          delayMs?: number;
        };
        scripted.set(`${service}/${channel}`, [...(scripted.get(`${service}/${channel}`) ?? []), ...statuses]);
        if (delayMs !== undefined) delays.set(`${service}/${channel}`, delayMs);
        response.writeHead(204).end();
        return;
      }
      const match = /^\/(\w+)\/(webhook|logout)$/.exec(path);
      if (request.method !== "POST" || !match) {
        response.writeHead(404).end();
        return;
      }
      const [, service, channel] = match as unknown as [string, string, "webhook" | "logout"];
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      const checked =
        channel === "webhook"
          ? checkWebhook(service, body, headers)
          : await checkLogoutToken(service, body, headers["content-type"] ?? "");
      const answered = scripted.get(`${service}/${channel}`)?.shift() ?? (checked.verified ? 200 : 400);
      received.push({ service, channel, verified: false, problem: null, ...checked, answered });
      const delayMs = delays.get(`${service}/${channel}`) ?? 0;
      setTimeout(() => response.writeHead(answered).end(), delayMs);
    })();
  });
});

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  console.log(`event receiver listening on ${typeof address === "object" && address ? address.port : 0}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
