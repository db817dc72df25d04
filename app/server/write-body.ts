import type { IncomingMessage, ServerResponse } from "node:http";
import compression from "compression";

/** Answers up to this size go out as they are: gzip would cost more CPU than it saves bytes. */
const COMPRESS_FROM_BYTES = 1024;

/**
 * Writes an answer whose body is whole in memory: `writeHead` sets its status and headers, then the body goes out in
 * one write, gzipped when it is over COMPRESS_FROM_BYTES and the client accepts gzip (compression()'s negotiation of
 * Accept-Encoding, content type and Vary, without Express).
 */
export type WholeAnswerWriter = (
  req: IncomingMessage,
  res: ServerResponse,
  writeHead: () => void,
  body: Buffer | undefined,
) => void;

export function wholeAnswerWriter(compressionLevel: number): WholeAnswerWriter {
  const compress = compression({ level: compressionLevel, threshold: COMPRESS_FROM_BYTES });
  return (req, res, writeHead, body) => {
    const writeAll = () => {
      writeHead();
      res.end(body);
    };
    // compression() decides on the Accept-Encoding and the Content-Length when writeAll() writes the head.
    if (body && body.length > COMPRESS_FROM_BYTES) compress(req as never, res as never, writeAll);
    else writeAll();
  };
}

/**
 * Answers whose body is a download streamed as it is produced (app/domain/staff/spreadsheet-csv.server.ts): never
 * buffered whole by the API lane, never compressed (compression holds back output in its window and leaks a zlib
 * stream per aborted response; research §5.3).
 */
const STREAMED_MEDIA_TYPES = new Set(["text/csv"]);

export function isStreamedDownload(contentType: string | number | string[] | undefined | null): boolean {
  if (typeof contentType !== "string") return false;
  return STREAMED_MEDIA_TYPES.has(contentType.split(";", 1)[0]!.trim().toLowerCase());
}

/**
 * Writes a web stream to a node response one chunk at a time, reading the next chunk only once the socket has taken
 * the last (waiting for 'drain' when `write` says its buffer is full), so a slow client slows the source instead
 * of making us buffer the body; @react-router/node 7's writeReadableStreamToWritable ignores backpressure
 * (react-router#15049). When the response closes before the end (the client went away), the stream is cancelled,
 * which ends its source (the database query stops). Watches `res` 'close', not `req`: the request's 'close' comes
 * as soon as its body has been read (react-router#11248).
 */
export async function writeBody(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  let clientGone = res.destroyed;
  let wakeWriter: (() => void) | undefined;
  const onClose = () => {
    if (res.writableFinished) return;
    clientGone = true;
    wakeWriter?.();
    // Ends a read that waits on the source (a slow query) as well; the source's cancel runs once it returns.
    reader.cancel().catch(() => undefined);
  };
  res.on("close", onClose);
  if (clientGone) await reader.cancel();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (clientGone) return;
      if (done) return void res.end();
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wakeWriter = resolve;
          res.once("drain", resolve);
        });
        res.off("drain", wakeWriter!);
        wakeWriter = undefined;
        if (clientGone) return;
      }
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    // A client who left mid-download is no failure.
    if (!clientGone) throw error;
  } finally {
    res.off("close", onClose);
    reader.releaseLock();
  }
}
