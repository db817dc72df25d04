import { afterAll, beforeAll, expect, test } from "vitest";
import { createSiblingSender, isInternalAddress } from "~/integrations/webhook-sender.server";
import { type EventReceiverProcess, startEventReceiver } from "../../support/event-receiver-process";

const SECRET = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;
let receiver: EventReceiverProcess;

beforeAll(async () => {
  // The receiver checks no logout token here: its key set's address is never fetched.
  receiver = await startEventReceiver({ issuer: "", jwksUrl: "http://127.0.0.1:9/", secrets: { data: [SECRET] } });
});
afterAll(() => receiver.stop());

const post = (url: string) => ({ url, headers: { "content-type": "application/json" }, body: "{}" });

test.each([
  ["127.0.0.1", true],
  ["127.8.9.10", true],
  ["10.1.2.3", true],
  ["172.16.0.1", true],
  ["192.168.1.1", true],
  ["169.254.169.254", true],
  ["100.64.0.1", true],
  ["0.0.0.0", true],
  ["::1", true],
  ["[::1]", true],
  ["::", true],
  ["fd12:3456::1", true],
  ["fe80::1", true],
  ["::ffff:127.0.0.1", true],
  ["::ffff:a00:1", true],
  ["93.184.215.14", false],
  ["172.32.0.1", false],
  ["100.128.0.1", false],
  ["2606:4700::1111", false],
  ["::ffff:8.8.8.8", false],
])("%s is internal: %s", (address, internal) => {
  expect(isInternalAddress(address)).toBe(internal);
});

test("outside dev and preview an endpoint at a loopback, private, link-local or IPv6 loopback address is refused", async () => {
  const before = (await receiver.received()).length;
  const sender = createSiblingSender({ refuseInternalAddresses: true });
  try {
    for (const host of [`127.0.0.1:${receiver.port}`, "10.0.0.1", "169.254.169.254", `[::1]:${receiver.port}`]) {
      const outcome = await sender.post(post(`http://${host}/data/webhook`));
      expect(outcome, host).toEqual({ kind: "unreachable", error: expect.stringMatching(/internal address/) });
    }
    // A name is checked on every address it resolves to, as the socket connects: localhost is loopback.
    const byName = await sender.post(post(`http://localhost:${receiver.port}/data/webhook`));
    expect(byName).toEqual({ kind: "unreachable", error: expect.stringMatching(/localhost resolves to .*internal/) });
  } finally {
    sender.close();
  }
  expect((await receiver.received()).length).toBe(before);
});

test("in dev and preview the same endpoints on this machine are reached", async () => {
  const sender = createSiblingSender({ refuseInternalAddresses: false });
  try {
    for (const host of [`127.0.0.1:${receiver.port}`, `localhost:${receiver.port}`]) {
      // Unsigned, so the receiver answers 400: it answered.
      expect(await sender.post(post(`http://${host}/data/webhook`)), host).toEqual({ kind: "answered", status: 400 });
    }
  } finally {
    sender.close();
  }
});

test("a redirect is an answer, not followed", async () => {
  await receiver.answer("data", "webhook", [307]);
  const sender = createSiblingSender({ refuseInternalAddresses: false });
  try {
    expect(await sender.post(post(receiver.urlOf("data", "webhook")))).toEqual({ kind: "answered", status: 307 });
  } finally {
    sender.close();
  }
});
