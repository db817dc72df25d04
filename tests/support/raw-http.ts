import net from "node:net";

/**
 * HTTP/1.1 over a bare TCP socket, for requests fetch() and node:http refuse to send or would tidy up: any method
 * (TRACE), any request target (`/api/../x`, bad percent-encoding, absolute form), any header bytes, no Host, an
 * HTTP/1.0 request line, bodies with lone surrogates. One request per connection (`Connection: close` unless the
 * caller writes its own head), so the answer ends where the server closes. Loopback only: the host is fixed.
 */
export interface RawResponse {
  status: number;
  /** Lower-cased header names; repeated headers (Set-Cookie) keep every value. */
  headers: Map<string, string[]>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: "response"; response: RawResponse }
  /** The connection failed, was reset or closed before a status line arrived, or nothing came in time. */
  | { kind: "socketError"; error: string };

/** Answers longer than this are cut: the fuzz needs the status, the headers and the start of the page. */
const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Sends bytes that already form a whole request and reads the answer. */
export function sendRawBytes(port: number, request: Buffer, timeoutMs = 30_000): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host: "127.0.0.1", port });
    const finish = (error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const response = parseResponse(Buffer.concat(chunks, size));
      // A reset after the whole status line and head arrived still answered the request (a server may close early
      // on a body it refuses); without them the client saw a broken connection.
      if (response) resolve({ kind: "response", response });
      else resolve({ kind: "socketError", error: error ?? `connection closed after ${size} bytes without an answer` });
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    socket.on("end", () => finish());
    socket.on("close", () => finish());
    socket.on("error", (error: NodeJS.ErrnoException) => finish(`${error.code ?? "error"}: ${error.message}`));
    socket.write(request);
  });
}

export interface RawRequest {
  method: string;
  /** The request target exactly as it goes on the wire. */
  target: string;
  /** In order; a name may repeat. Host is not added: include it (or leave it out on purpose). */
  headers: [string, string][];
  body?: Buffer;
}

/** Content-Length is added for a body (unless given) and `Connection: close` always (unless given). */
export function serializeRequest(request: RawRequest): Buffer {
  const headers = [...request.headers];
  const has = (name: string) => headers.some(([key]) => key.toLowerCase() === name);
  if (request.body && !has("content-length") && !has("transfer-encoding")) {
    headers.push(["Content-Length", String(request.body.length)]);
  }
  if (!has("connection")) headers.push(["Connection", "close"]);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}`).join("\r\n")}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, "latin1"), request.body ?? Buffer.alloc(0)]);
}

export function sendRawRequest(port: number, request: RawRequest, timeoutMs?: number): Promise<RawOutcome> {
  return sendRawBytes(port, serializeRequest(request), timeoutMs);
}

function parseResponse(bytes: Buffer): RawResponse | null {
  // Interim answers (100 Continue) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 13).toString("latin1"))) {
    const interimEnd = bytes.indexOf("\r\n\r\n");
    if (interimEnd === -1) return null;
    bytes = bytes.subarray(interimEnd + 4);
  }
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd === -1) return null;
  const [statusLine, ...lines] = bytes.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1] ?? NaN);
  if (!Number.isInteger(status)) return null;
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const rest = bytes.subarray(headEnd + 4);
  const chunked = headers.get("transfer-encoding")?.some((value) => value.toLowerCase().includes("chunked"));
  return { status, headers, body: chunked ? dechunk(rest) : rest };
}

/** A chunked body's data; a body cut short keeps what arrived. */
function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const lineEnd = bytes.indexOf("\r\n", offset);
    if (lineEnd === -1) break;
    const length = Number.parseInt(bytes.subarray(offset, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(length) || length === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + length));
    offset = lineEnd + 2 + length + 2;
  }
  return Buffer.concat(parts);
}

/** `name=value` of each Set-Cookie of an answer. */
export function setCookiesOf(response: RawResponse): [string, string][] {
  return (response.headers.get("set-cookie") ?? []).map((line) => {
    const pair = line.split(";")[0] ?? "";
    const equals = pair.indexOf("=");
    return [pair.slice(0, equals).trim(), pair.slice(equals + 1).trim()];
  });
}

/**
 * UTF-8, except that lone surrogates become their three-byte (WTF-8) form instead of U+FFFD: what a buggy client
 * or a hand-written request can put on the wire, and what TextEncoder and encodeURIComponent refuse to produce.
 */
export function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else
      bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Buffer.from(bytes);
}

/** application/x-www-form-urlencoded of name/value pairs (repeats kept), lone surrogates as WTF-8 escapes. */
export function formUrlEncode(pairs: [string, string][]): string {
  const encode = (text: string) =>
    [...wtf8(text)]
      .map((byte) =>
        (byte >= 0x30 && byte <= 0x39) ||
        (byte >= 0x41 && byte <= 0x5a) ||
        (byte >= 0x61 && byte <= 0x7a) ||
        "-._*".includes(String.fromCharCode(byte))
          ? String.fromCharCode(byte)
          : byte === 0x20
            ? "+"
            : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`,
      )
      .join("");
  return pairs.map(([name, value]) => `${encode(name)}=${encode(value)}`).join("&");
}

/** multipart/form-data of name/value pairs as a browser sends it, with the boundary to put in Content-Type. */
export function multipartEncode(
  pairs: [string, string][],
  boundary = `----fuzz${Math.random().toString(36).slice(2)}`,
) {
  const parts = pairs.map(([name, value]) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/"/g, "%22")}"\r\n\r\n`),
      wtf8(value),
      Buffer.from("\r\n"),
    ]),
  );
  return { boundary, body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) };
}
