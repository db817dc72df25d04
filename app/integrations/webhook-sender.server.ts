/**
 * The HTTP POST of an account event to a sibling service (app/domain/events/event-delivery.server.ts): one request,
 * no redirect followed, a deadline on the whole exchange, and, outside dev and preview, no connection to an address
 * inside our own networks, so an endpoint's URL cannot be turned against our infrastructure (SSRF).
 */
import { type LookupAddress, lookup as dnsLookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP } from "node:net";

/** A receiver that has not answered within this long is counted as failed, and tried again later. */
export const SIBLING_POST_TIMEOUT_MS = 15_000;
/** An answer's body is read (and dropped) up to this much, so the connection can be reused; the rest is cut off. */
const MAX_DRAINED_BODY_BYTES = 64 * 1024;

export interface SiblingPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What came of a POST: the receiver's status (a 3xx included: it is not followed), or why none came. */
export type SiblingPostOutcome = { kind: "answered"; status: number } | { kind: "unreachable"; error: string };

export interface SiblingSender {
  post(request: SiblingPost): Promise<SiblingPostOutcome>;
  close(): void;
}

/**
 * Addresses a sibling endpoint may not resolve to outside dev and preview: unspecified, loopback, private (RFC 1918),
 * link-local (cloud metadata lives at 169.254.169.254), carrier-grade NAT, and IPv6's unique-local and link-local.
 */
const INTERNAL_ADDRESSES = (() => {
  const list = new BlockList();
  list.addSubnet("0.0.0.0", 8, "ipv4");
  list.addSubnet("127.0.0.0", 8, "ipv4");
  list.addSubnet("10.0.0.0", 8, "ipv4");
  list.addSubnet("172.16.0.0", 12, "ipv4");
  list.addSubnet("192.168.0.0", 16, "ipv4");
  list.addSubnet("169.254.0.0", 16, "ipv4");
  list.addSubnet("100.64.0.0", 10, "ipv4");
  list.addAddress("::", "ipv6");
  list.addAddress("::1", "ipv6");
  list.addSubnet("fc00::", 7, "ipv6");
  list.addSubnet("fe80::", 10, "ipv6");
  return list;
})();

/** An IPv4 address written as IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`), as the IPv4 address it reaches. */
function embeddedIpv4(address: string): string | null {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether `address` (an IP literal) lies in our own networks: loopback, private, link-local and the like. */
export function isInternalAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[|\]$/g, "");
  const family = isIP(unbracketed);
  if (family === 4) return INTERNAL_ADDRESSES.check(unbracketed, "ipv4");
  if (family !== 6) return false;
  const ipv4 = embeddedIpv4(unbracketed);
  return ipv4 ? INTERNAL_ADDRESSES.check(ipv4, "ipv4") : INTERNAL_ADDRESSES.check(unbracketed, "ipv6");
}

class InternalAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, an internal address: refused outside dev and preview`);
    this.name = "InternalAddressError";
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for the socket that refuses the connection when any address the name resolves to is internal. The
 * socket connects only to what this returns, so a name that resolves differently a moment later (DNS rebinding)
 * cannot reach an internal address that a separate check had not seen.
 */
function guardedLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const internal = addresses.find((entry) => isInternalAddress(entry.address));
    if (internal) return callback(new InternalAddressError(hostname, internal.address), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
    callback(null, first.address, first.family);
  });
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return `${error.name}${code ? ` ${code}` : ""}: ${error.message}`;
}

/**
 * The sender of sibling POSTs. `refuseInternalAddresses` outside dev and preview, whose receivers run on this
 * machine. Keeps its own connection pools (keep-alive), so a connection opened without the guard is never reused
 * with it.
 */
export function createSiblingSender(options: { refuseInternalAddresses: boolean; timeoutMs?: number }): SiblingSender {
  const timeoutMs = options.timeoutMs ?? SIBLING_POST_TIMEOUT_MS;
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true }),
  };
  return {
    async post({ url, headers, body }) {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        return { kind: "unreachable", error: `${target.protocol} is not http or https` };
      }
      // A literal address is connected to without a lookup, so it is checked here.
      if (options.refuseInternalAddresses && isInternalAddress(target.hostname)) {
        return { kind: "unreachable", error: describeError(new InternalAddressError(target.host, target.hostname)) };
      }
      const transport = target.protocol === "https:" ? https : http;
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const status = await new Promise<number>((resolve, reject) => {
          const request = transport.request(
            target,
            {
              method: "POST",
              agent: agents[target.protocol as "http:" | "https:"],
              headers: { ...headers, "content-length": Buffer.byteLength(body) },
              signal,
              ...(options.refuseInternalAddresses ? { lookup: guardedLookup } : {}),
            },
            (response) => {
              let drained = 0;
              response.on("data", (chunk: Buffer) => {
                drained += chunk.length;
                if (drained > MAX_DRAINED_BODY_BYTES) response.destroy();
              });
              response.on("close", () => resolve(response.statusCode ?? 0));
              response.on("error", () => resolve(response.statusCode ?? 0));
            },
          );
          request.on("error", reject);
          request.end(body);
        });
        return { kind: "answered", status };
      } catch (error) {
        return {
          kind: "unreachable",
          error: signal.aborted ? `no answer within ${timeoutMs / 1000} s` : describeError(error),
        };
      }
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}
