/** Reading a request body within its limit before React Router's adapter streams it to the routes. */
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
 * Reads the request body if it is at most `limit` bytes (or `larger.bytes` once `larger.allowed()` said yes), whatever
 * Content-Length claims (a chunked upload has none), then puts it back at the front of the stream (`unshift`, Node's
 * way for a reader to give back what it read) for @react-router/express to stream to React Router as it would have:
 * so a route's `request.formData()` never meets a body past its limit. The body is read in paused mode, and the
 * stream's end is known from node:http's `complete` rather than its 'end' event, after which nothing can be put back.
 *
 * A larger body is read on and dropped up to DRAIN_BYTES more, so that ordinary clients, which send their whole body
 * before they read the answer, get the 413 instead of a broken pipe; beyond that reading stops and the caller closes
 * the connection after its answer. "refused": `allowed` said no (the rest is dropped as it comes, up to DRAIN_BYTES).
 * "gone": the client hung up first. Otherwise the body, for checks that need it whole (a multipart body's syntax).
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
    let asking = false;
    const settle = () => req.off("readable", onReadable).off("close", onClose).off("error", onError);
    // "refused" is answered at once; "too large" once the rest is dropped (or the allowance spent), so that a client
    // still sending is not cut off mid-body.
    const refuse = (outcome: "too large" | "refused") => {
      settle();
      const dropped = dropUpTo(req, DRAIN_BYTES);
      if (outcome === "refused") resolve(outcome);
      else void dropped.then(() => resolve(outcome));
    };
    function onReadable() {
      if (asking) return;
      while (req.readableLength > 0) {
        // Sized: read() alone, draining an ended stream, would have it emit 'end', after which nothing can be put back.
        const chunk = req.read(req.readableLength) as Buffer;
        size += chunk.length;
        chunks.push(chunk);
        if (size <= allowedBytes) continue;
        if (!larger || allowedBytes === larger.bytes) return refuse("too large");
        // Not read further until the gate answers: the socket stops once the stream's buffer is full.
        asking = true;
        larger.allowed().then(
          (allowed) => {
            asking = false;
            if (!allowed) return refuse("refused");
            allowedBytes = larger.bytes;
            onReadable();
          },
          (error: unknown) => {
            settle();
            reject(error as Error);
          },
        );
        return;
      }
      if (!req.complete) return;
      settle();
      const body = Buffer.concat(chunks, size);
      if (size > 0) req.unshift(body);
      resolve(body);
    }
    const onClose = () => {
      settle();
      resolve("gone");
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // Started once node:http has parsed what it has received: a request whose whole body (or no body) came with its
    // head is complete by then, and taken as it is. A 'readable' listener added to a stream that already has its
    // end would have it emit 'end' at once, which React Router's adapter, subscribing later, would never see.
    process.nextTick(() => {
      if (req.complete) return onReadable();
      req.on("readable", onReadable).on("close", onClose).on("error", onError);
    });
  });
}

/**
 * Reads and drops what the client still sends, up to `bytes`, then stops reading (the connection then closes).
 * Settles when the body has ended or the allowance is spent.
 */
function dropUpTo(req: IncomingMessage, bytes: number): Promise<void> {
  return new Promise((resolve) => {
    let dropped = 0;
    const stop = () => {
      req.off("data", onData).off("end", stop).off("close", stop);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped <= bytes) return;
      req.pause();
      stop();
    };
    req.on("data", onData).on("end", stop).on("close", stop).resume();
  });
}
