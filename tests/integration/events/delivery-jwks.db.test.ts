import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
import { eventDeliveries } from "~db/schema";
import { parseConfig } from "~/config.server";
import { recordAccountEvent } from "~/domain/events/account-events.server";
import { deliverDueEvents } from "~/domain/events/event-delivery.server";
import { createLogoutTokenSigner } from "~/domain/events/logout-tokens.server";
import { createSiblingSender } from "~/integrations/webhook-sender.server";
import { type EventReceiverProcess, startEventReceiver } from "../../support/event-receiver-process";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { useTestDatabase } from "../../support/test-database";

/**
 * The logout tokens' keys as the production build publishes them at /.well-known/jwks.json, and a receiver in a
 * process of its own that verifies a delivered logout token against exactly that document.
 */
const database = useTestDatabase("event-delivery-jwks", { ownDatabase: true });

let rawKeys: string;
let server: ServerProcess;
let origin: string;
let receiver: EventReceiverProcess;

beforeAll(async () => {
  const keys = [];
  for (const kid of ["current", "previous"]) {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    keys.push({ ...(await exportJWK(privateKey)), kid, alg: "ES256" });
  }
  rawKeys = JSON.stringify(keys);
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    LOGOUT_TOKEN_SIGNING_KEYS: rawKeys,
  });
  origin = `http://localhost:${new URL(server.url).port}`;
  receiver = await startEventReceiver({
    issuer: origin,
    jwksUrl: `${server.url}/.well-known/jwks.json`,
    secrets: {},
  });
});

afterAll(async () => {
  await receiver?.stop();
  await server?.stop();
});

test("GET /.well-known/jwks.json answers 200 there, without a redirect: the public keys, cacheable", async () => {
  const response = await fetch(`${server.url}/.well-known/jwks.json`, { redirect: "manual" });
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toMatch(/^application\/json/);
  expect(response.headers.get("Cache-Control")).toBe("public, max-age=300");
  expect(response.headers.getSetCookie()).toEqual([]);
  const { keys } = (await response.json()) as { keys: Record<string, string>[] };
  expect(keys.map((key) => key.kid)).toEqual(["current", "previous"]);
  for (const key of keys) {
    expect(Object.keys(key).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
  }
  const head = await fetch(`${server.url}/.well-known/jwks.json`, { method: "HEAD", redirect: "manual" });
  expect(head.status).toBe(200);
});

test("a delivered logout token verifies against the app's published keys", async () => {
  const { db } = database();
  const settings = parseConfig({
    SESSION_SECRETS: "x".repeat(32),
    SERVICE_LOGOUT_URI_SHOP: receiver.urlOf("shop", "logout"),
    LOGOUT_TOKEN_SIGNING_KEYS: rawKeys,
  }).siblingEvents;
  const sender = createSiblingSender({ refuseInternalAddresses: false });
  const sub = randomUUID();
  try {
    await recordAccountEvent(db, {
      sub,
      occurredAt: new Date(),
      type: "session.revoked",
      data: { sid: "origin-jti-7", reason: "device-deactivated" },
    });
    await deliverDueEvents({
      db,
      clock: { now: () => new Date() },
      settings,
      signer: await createLogoutTokenSigner(rawKeys, origin),
      sender,
    });
  } finally {
    sender.close();
  }
  const [delivery] = await db.select().from(eventDeliveries);
  expect(delivery).toMatchObject({ service: "shop", channel: "logout", lastStatus: 200 });
  const got = await receiver.received();
  expect(got).toEqual([
    expect.objectContaining({
      service: "shop",
      channel: "logout",
      verified: true,
      answered: 200,
      header: { alg: "ES256", typ: "logout+jwt", kid: "current" },
      claims: expect.objectContaining({ iss: origin, aud: "shop", sub, sid: "origin-jti-7", jti: delivery!.id }),
    }),
  ]);
});
