import http, { IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, Socket } from "node:net";
import { afterEach, expect, test } from "vitest";
import { type RequestQueue, createRequestQueue } from "~/server/request-queue";

interface Started {
  name: string;
  res: ServerResponse;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose requests go through `queue`; each started request is held open until the test answers it. */
async function queuedServer(queue: RequestQueue) {
  const started: Started[] = [];
  const closed = new Set<string>();
  let arrived = 0;
  const server = http.createServer((req, res) => {
    const name = req.url!.slice(1);
    arrived++;
    res.on("close", () => closed.add(name));
    queue.admit(res, () => started.push({ name, res }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const requests: http.ClientRequest[] = [];
  /** Sends one request on its own connection and waits until the queue has taken it, so arrival order is known. */
  const send = async (name: string) => {
    const before = arrived;
    const request = http.get({ host: "127.0.0.1", port, path: `/${name}`, agent: false });
    request.on("error", () => {});
    request.on("response", (response) => response.resume());
    requests.push(request);
    await until(() => arrived > before);
    return request;
  };
  return { started, closed, send };
}

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

test("at most the set number of requests are in progress; the others start in arrival order as places free", async () => {
  const queue = createRequestQueue({ inProgress: 2, holdLimitMs: 60_000 });
  const { started, send } = await queuedServer(queue);
  for (const name of ["a", "b", "c", "d", "e"]) await send(name);

  expect(started.map((request) => request.name)).toEqual(["a", "b"]);
  expect(queue.waiting).toBe(3);

  started[1]!.res.end("done");
  await until(() => started.length === 3);
  expect(started.map((request) => request.name)).toEqual(["a", "b", "c"]);
  expect(queue.inProgress).toBe(2);

  started[0]!.res.end("done");
  started[2]!.res.end("done");
  await until(() => started.length === 5);
  expect(started.map((request) => request.name)).toEqual(["a", "b", "c", "d", "e"]);
  expect(queue.waiting).toBe(0);
});

test("a waiting request whose client left is never started", async () => {
  const queue = createRequestQueue({ inProgress: 1, holdLimitMs: 60_000 });
  const { started, closed, send } = await queuedServer(queue);
  await send("first");
  const gone = await send("gone");
  await send("last");
  gone.destroy();
  await until(() => closed.has("gone"));

  started[0]!.res.end("done");
  await until(() => started.length === 2);
  expect(started.map((request) => request.name)).toEqual(["first", "last"]);
  expect(queue.waiting).toBe(0);
});

test("a request that holds its place past the hold limit lets the next start while it is still in progress", async () => {
  const queue = createRequestQueue({ inProgress: 1, holdLimitMs: 1 });
  const { started, send } = await queuedServer(queue);
  await send("slow");
  await send("next");

  await until(() => started.length === 2);
  expect(started[0]!.res.writableEnded).toBe(false);
  expect(started.map((request) => request.name)).toEqual(["slow", "next"]);
});

test("requests that arrive in one turn of the event loop start one per turn, so no turn carries them all", async () => {
  const queue = createRequestQueue({ inProgress: 10, holdLimitMs: 60_000 });
  const started: string[] = [];
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  for (const name of ["a", "b", "c"]) {
    queue.admit(new ServerResponse(new IncomingMessage(new Socket())), () => started.push(name));
  }
  expect(started).toEqual([]);
  await nextTurn();
  expect(started).toEqual(["a"]);
  await nextTurn();
  expect(started).toEqual(["a", "b"]);
  await nextTurn();
  expect(started).toEqual(["a", "b", "c"]);
});
