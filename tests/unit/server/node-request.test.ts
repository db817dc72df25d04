import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { expect, test } from "vitest";
import { readBody } from "~/server/node-request";

const LIMIT = 1024;
/** readBody's allowance for reading on and dropping a too-large body (1 MiB). */
const DRAIN_BYTES = 1024 * 1024;
const CHUNK = Buffer.alloc(4096, "x");

/**
 * A stream as node:http's request: its headers, and `complete` once the whole message has arrived (the stream has
 * its end, whether or not anybody read it yet).
 */
function asRequest(stream: Readable, headers: Record<string, string> = {}): IncomingMessage {
  const state = (stream as unknown as { _readableState: { ended: boolean } })._readableState;
  Object.defineProperty(stream, "complete", { get: () => state.ended });
  return Object.assign(stream, { headers }) as unknown as IncomingMessage;
}

/** A request body as node:http delivers it, counting the chunks anybody pulled. */
function fakeRequest(chunks: number, headers: Record<string, string> = {}) {
  let pulled = 0;
  const stream = new Readable({
    // Node 22 raised the default read-ahead from 16 to 64 KiB: fixed, so the bound below holds on Node 20 and 24.
    highWaterMark: 16 * 1024,
    read() {
      if (pulled >= chunks) return void this.push(null);
      pulled++;
      this.push(CHUNK);
    },
  });
  return { req: asRequest(stream, headers), pulled: () => pulled };
}

test("a body within the limit is returned whole, and put back for React Router's adapter to read", async () => {
  const small = Readable.from([Buffer.from('{"email":'), Buffer.from('"a@example.jp"}')]);
  const body = await readBody(asRequest(small), LIMIT);
  expect(body).toEqual(Buffer.from('{"email":"a@example.jp"}'));
  expect(Buffer.concat(await small.toArray())).toEqual(Buffer.from('{"email":"a@example.jp"}'));
});

test("an empty body leaves the stream to end for its next reader", async () => {
  const empty = Readable.from([]);
  expect(await readBody(asRequest(empty), LIMIT)).toEqual(Buffer.alloc(0));
  expect(await empty.toArray()).toEqual([]);
});

test("a body over the limit is refused, read on to its end while that is within the drain allowance", async () => {
  const { req, pulled } = fakeRequest(10);
  expect(await readBody(req, LIMIT)).toBe("too large");
  expect(pulled()).toBe(10);
});

test("a huge body is refused once the drain allowance is spent, and read no further", async () => {
  const allowance = Math.ceil((LIMIT + DRAIN_BYTES) / CHUNK.length);
  // Finite, so that a lane that reads on fails this test instead of hanging it.
  const { req, pulled } = fakeRequest(allowance + 1000);
  expect(await readBody(req, LIMIT)).toBe("too large");
  // Paused, the stream reads ahead only to its high-water mark, in process.nextTick callbacks: all of them run before
  // a setImmediate callback, so what it pulled is final here, not a matter of how long the test waits.
  await new Promise((resolve) => setImmediate(resolve));
  expect(req.readableFlowing).toBe(false);
  // The stream may have buffered a few chunks ahead (its high-water mark), nothing like the whole upload.
  expect(pulled()).toBeGreaterThan(allowance);
  expect(pulled()).toBeLessThan(allowance + 8);
});

test("a declared length beyond the allowance is refused without reading anything", async () => {
  const { req, pulled } = fakeRequest(10, { "content-length": String(LIMIT + DRAIN_BYTES + 1) });
  expect(await readBody(req, LIMIT)).toBe("too large");
  expect(pulled()).toBe(0);
});

test("a larger limit is asked for once the ordinary one is passed, and applies only when allowed", async () => {
  let asked = 0;
  const larger = (allowed: boolean) => ({
    bytes: 16 * CHUNK.length,
    allowed: async () => {
      asked++;
      return allowed;
    },
  });
  const small = Readable.from([Buffer.from("a=1")]);
  expect(await readBody(asRequest(small), LIMIT, larger(false))).toEqual(Buffer.from("a=1"));
  expect(asked).toBe(0);
  const allowed = await readBody(fakeRequest(10).req, LIMIT, larger(true));
  expect(Buffer.isBuffer(allowed) && allowed.length).toBe(10 * CHUNK.length);
  expect(asked).toBe(1);
  // Refused: answered at once, whatever is left of the body (the stream below never ends by itself).
  const endless = new Readable({ read() {} });
  endless.push(CHUNK);
  expect(await readBody(asRequest(endless), LIMIT, larger(false))).toBe("refused");
  expect(asked).toBe(2);
  endless.destroy();
});

test("a body that ends while the larger limit is being asked for is returned whole once allowed", async () => {
  // The whole body waited in the stream's buffer (the request waited for a place): the chunk that passes the
  // ordinary limit is its last, and the stream has its end before the answer comes.
  const stream = new Readable({ read() {} });
  stream.push(Buffer.alloc(LIMIT - 10, "a"));
  stream.push(Buffer.alloc(100, "b"));
  stream.push(null);
  const req = asRequest(stream);
  const slowAnswer = {
    bytes: 16 * CHUNK.length,
    allowed: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 20)),
  };
  const body = await readBody(req, LIMIT, slowAnswer);
  expect(Buffer.isBuffer(body) && body.length).toBe(LIMIT - 10 + 100);
});

test("a client that hangs up mid-body is 'gone'", async () => {
  const stream = new Readable({ read() {} });
  const req = asRequest(stream);
  const reading = readBody(req, LIMIT);
  stream.push(CHUNK.subarray(0, 100));
  stream.destroy();
  expect(await reading).toBe("gone");
});
