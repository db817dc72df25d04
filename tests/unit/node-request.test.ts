import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { expect, test } from "vitest";
import { headersOf, readBody } from "~/server/node-request";

const LIMIT = 1024;
/** readBody's allowance for reading on and dropping a too-large body (1 MiB). */
const DRAIN_BYTES = 1024 * 1024;
const CHUNK = Buffer.alloc(4096, "x");

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
  return { req: Object.assign(stream, { headers }) as unknown as IncomingMessage, pulled: () => pulled };
}

test("a body within the limit is returned whole", async () => {
  const small = Readable.from([Buffer.from('{"email":'), Buffer.from('"a@example.jp"}')]);
  const body = await readBody(Object.assign(small, { headers: {} }) as unknown as IncomingMessage, LIMIT);
  expect(body).toEqual(Buffer.from('{"email":"a@example.jp"}'));
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
  expect(
    await readBody(Object.assign(small, { headers: {} }) as unknown as IncomingMessage, LIMIT, larger(false)),
  ).toEqual(Buffer.from("a=1"));
  expect(asked).toBe(0);
  const allowed = await readBody(fakeRequest(10).req, LIMIT, larger(true));
  expect(Buffer.isBuffer(allowed) && allowed.length).toBe(10 * CHUNK.length);
  expect(asked).toBe(1);
  // Refused: answered at once, whatever is left of the body (the stream below never ends by itself).
  const endless = new Readable({ read() {} });
  endless.push(CHUNK);
  const req = Object.assign(endless, { headers: {} }) as unknown as IncomingMessage;
  expect(await readBody(req, LIMIT, larger(false))).toBe("refused");
  expect(asked).toBe(2);
  endless.destroy();
});

test("a body that ends while the larger limit is being asked for is returned whole once allowed", async () => {
  // The whole body waited in the stream's buffer (the request queue started the request late): the chunk that
  // passes the ordinary limit is its last, and the stream ends, then closes, before the answer comes.
  const stream = new Readable({ read() {} });
  stream.push(Buffer.alloc(LIMIT - 10, "a"));
  stream.push(Buffer.alloc(100, "b"));
  stream.push(null);
  const req = Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
  const slowAnswer = {
    bytes: 16 * CHUNK.length,
    allowed: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 20)),
  };
  const body = await readBody(req, LIMIT, slowAnswer);
  expect(Buffer.isBuffer(body) && body.length).toBe(LIMIT - 10 + 100);
});

test("a client that hangs up mid-body is 'gone'", async () => {
  const stream = new Readable({ read() {} });
  const req = Object.assign(stream, { headers: {} }) as unknown as IncomingMessage;
  const reading = readBody(req, LIMIT);
  stream.push(CHUNK.subarray(0, 100));
  stream.destroy();
  expect(await reading).toBe("gone");
});

test("a repeated Content-Type reaches the app as the one the lanes checked (node's first), other repeats stay", () => {
  const headers = headersOf({
    rawHeaders: [
      "Content-Type",
      "application/x-www-form-urlencoded",
      "Accept",
      "text/html",
      "content-type",
      "application/json",
      "Accept",
      "application/json",
    ],
  });
  expect(headers.get("Content-Type")).toBe("application/x-www-form-urlencoded");
  expect(headers.get("Accept")).toBe("text/html, application/json");
});
