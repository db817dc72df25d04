import { once } from "node:events";
import { spawnNodeScript } from "./node-child";
import type { ReceivedDelivery } from "./event-receiver";

export type { ReceivedDelivery };

export interface EventReceiverProcess {
  port: number;
  /** The URL of a service's endpoint on this receiver. */
  urlOf(service: string, channel: "webhook" | "logout"): string;
  /** Everything it has received, in arrival order. */
  received(): Promise<ReceivedDelivery[]>;
  /** The next answers of a service's channel (200 after them), each held back `delayMs` when given. */
  answer(service: string, channel: "webhook" | "logout", statuses: number[], delayMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const RECEIVER_START_TIMEOUT_MS = 30_000;

/**
 * Starts tests/support/event-receiver.ts as a process of its own (tied to this one: node-child.ts), on `port` or a
 * free one, checking webhooks with `secrets` and logout tokens against `jwksUrl` and `issuer`.
 */
export async function startEventReceiver(options: {
  issuer: string;
  jwksUrl: string;
  secrets: Record<string, string[]>;
  port?: number;
}): Promise<EventReceiverProcess> {
  const child = spawnNodeScript(new URL("./event-receiver.ts", import.meta.url).pathname, [], {
    env: {
      ...process.env,
      PORT: String(options.port ?? 0),
      EVENT_RECEIVER_CONFIG: JSON.stringify({
        issuer: options.issuer,
        jwksUrl: options.jwksUrl,
        secrets: options.secrets,
      }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + RECEIVER_START_TIMEOUT_MS;
  let port = 0;
  while (!(port = Number(/event receiver listening on (\d+)/.exec(output)?.[1] ?? 0))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`The event receiver did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const base = `http://127.0.0.1:${port}`;
  return {
    port,
    urlOf: (service, channel) => `${base}/${service}/${channel}`,
    received: async () => (await (await fetch(`${base}/__received`)).json()) as ReceivedDelivery[],
    async answer(service, channel, statuses, delayMs) {
      const response = await fetch(`${base}/__answers`, {
        method: "POST",
        body: JSON.stringify({ service, channel, statuses, delayMs }),
      });
      if (response.status !== 204) throw new Error(`The receiver refused the answers: ${response.status}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
