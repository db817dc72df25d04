/** Reading a node:http request for fetch's Request, as both lanes (pages, API) hand it to React Router. */
import type { IncomingMessage } from "node:http";

/** How much of a too-large body is read and dropped before reading stops (see readBody). */
const DRAIN_BYTES = 1024 * 1024;

/**
 * A limit above the ordinary one, for whom `allowed` (asked once, when the body first passes the ordinary limit,
 * with the stream paused) says may send that much: the CSV import's upload, for staff only.
 */
export interface LargerBodyLimit {
  bytes: number;
  allowed(): Promise<boolean>;
}

/**
 * The request body if it is at most `limit` bytes (or `larger.bytes` once `larger.allowed()` said yes), whatever
 * Content-Length claims (a chunked upload has none). A larger one is read on and dropped up to DRAIN_BYTES more, so
 * that ordinary clients, which send their whole body before they read the answer, get the 413 instead of a broken
 * pipe; beyond that reading stops and the caller closes the connection after its answer. "refused": `allowed`
 * said no, and the caller answers at once (the rest is dropped as it comes, up to DRAIN_BYTES). "gone": the client
 * hung up first.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  larger?: LargerBodyLimit,
): Promise<Buffer<ArrayBuffer> | "too large" | "refused" | "gone"> {
  if (Number(req.headers["content-length"] ?? 0) > (larger?.bytes ?? limit) + DRAIN_BYTES) {
    return Promise.resolve("too large");
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let allowedBytes = limit;
    let asked = false;
    let decision: Promise<boolean> | undefined;
    const settle = () => req.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onError);
    const take = (chunk: Buffer) => {
      if (size <= allowedBytes) chunks.push(chunk);
      else if (size > allowedBytes + DRAIN_BYTES) {
        settle();
        // Without a data listener the stream would keep flowing, reading the upload to its end.
        req.pause();
        resolve("too large");
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!larger || asked || size <= allowedBytes) return take(chunk);
      asked = true;
      req.pause();
      decision = larger.allowed();
      decision.then(
        (allowed) => {
          if (!allowed) {
            settle();
            dropUpTo(req, DRAIN_BYTES);
            return resolve("refused");
          }
          allowedBytes = larger.bytes;
          take(chunk);
          req.resume();
        },
        (error: unknown) => {
          settle();
          req.resume();
          reject(error as Error);
        },
      );
    };
    const onEnd = () => {
      settle();
      const finish = () => resolve(size > allowedBytes ? "too large" : Buffer.concat(chunks, size));
      // A body that came in one go may end before the gate has answered: its answer sets the limit (a refusal or
      // an error settles the promise first).
      if (decision) decision.then(finish, () => undefined);
      else finish();
    };
    const onClose = () => {
      settle();
      resolve("gone");
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    req.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onError);
  });
}

/** Reads and drops what the client still sends, up to `bytes`, then stops reading (the connection then closes). */
function dropUpTo(req: IncomingMessage, bytes: number) {
  let dropped = 0;
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bytes) {
      req.off("data", onData);
      req.pause();
    }
  };
  req.on("data", onData).resume();
}

/**
 * Fields node:http keeps only the first of when a client repeats them (its documented rule for `req.headers`). The
 * lanes check those values (Content-Type, Content-Length, Host), so the app must be handed the same ones: a second
 * Content-Type appended after the checked one would make fetch's formData() throw.
 */
const FIRST_VALUE_ONLY_FIELDS = new Set([
  "age",
  "authorization",
  "content-length",
  "content-type",
  "etag",
  "expires",
  "from",
  "host",
  "if-modified-since",
  "if-unmodified-since",
  "last-modified",
  "location",
  "max-forwards",
  "proxy-authorization",
  "referer",
  "retry-after",
  "server",
  "user-agent",
]);

/** The request's headers as node:http reads them: repeated ones stay repeated, except the single-value fields. */
export function headersOf(req: Pick<IncomingMessage, "rawHeaders">): Headers {
  const headers = new Headers();
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = req.rawHeaders[index]!;
    if (FIRST_VALUE_ONLY_FIELDS.has(name.toLowerCase()) && headers.has(name)) continue;
    headers.append(name, req.rawHeaders[index + 1]!);
  }
  return headers;
}
