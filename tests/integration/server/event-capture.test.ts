import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { type Server, createServer } from "node:http";
import { type JWK, SignJWT, exportJWK, generateKeyPair } from "jose";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, test } from "vitest";
import {
  type RunningEventCapture,
  eventCaptureDirectory,
  listCapturedDeliveries,
  logoutUriOf,
  startEventCapture,
  webhookUrlOf,
} from "../../support/stand-ins/event-capture";
import { makeTempDir } from "../../support/temp-dir";

// The receiver the embedded stack starts for the sibling services, over HTTP, with the app's published keys served by
// a stand-in for the app's /.well-known/jwks.json (its own route is the logout helper's).
const temp = makeTempDir("event-capture");
const directory = eventCaptureDirectory(temp.dir);
const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
let capture: RunningEventCapture;
let app: Server;
let appOrigin: string;
let publishedKeys: JWK[] | null = null;
let signingKey: CryptoKey;

beforeAll(async () => {
  app = createServer((request, response) => {
    if (request.url !== "/.well-known/jwks.json" || !publishedKeys) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: publishedKeys }));
  });
  app.listen(0, "127.0.0.1");
  await once(app, "listening");
  const address = app.address();
  appOrigin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  capture = await startEventCapture({ directory, appOrigin, webhookSecretsOf: () => [secret] });
  const pair = await generateKeyPair("ES256", { extractable: true });
  signingKey = pair.privateKey;
  publishedKeys = [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }];
});

afterAll(async () => {
  await capture?.stop();
  app?.close();
  temp.remove();
});

function postWebhook(service: "data" | "shop", signWith: string, body: string, id: string) {
  const signature = new Webhook(signWith).sign(id, new Date(), body);
  return fetch(webhookUrlOf(capture.url, service), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": signature,
    },
    body,
  });
}

function logoutToken(key: CryptoKey, claims: { aud: string; jti: string }) {
  return new SignJWT({ sid: "session-1", events: { "http://schemas.openid.net/event/backchannel-logout": {} } })
    .setProtectedHeader({ alg: "ES256", typ: "logout+jwt", kid: "k1" })
    .setIssuer(appOrigin)
    .setAudience(claims.aud)
    .setSubject("member-sub")
    .setJti(claims.jti)
    .setIssuedAt()
    .setExpirationTime("2m")
    .sign(key);
}

function postLogout(service: "data" | "compe", token: string) {
  return fetch(logoutUriOf(capture.url, service), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ logout_token: token }),
  });
}

test("a webhook signed with the service's secret is verified, a badly signed one refused with 400, both recorded", async () => {
  const goodId = randomUUID();
  const body = JSON.stringify({ id: goodId, type: "member.updated", sub: "member-sub", sequence: 1, data: {} });
  const good = await postWebhook("data", secret, body, goodId);
  expect(good.status).toBe(200);

  const badId = randomUUID();
  const otherSecret = `whsec_${Buffer.from("another secret of 24 bytes!!").toString("base64")}`;
  const bad = await postWebhook("shop", otherSecret, body.replace(goodId, badId), badId);
  expect(bad.status).toBe(400);

  const [latest, earlier] = await listCapturedDeliveries(directory);
  expect(latest).toMatchObject({
    service: "shop",
    channel: "webhook",
    type: "member.updated",
    eventId: badId,
    verdict: "rejected",
    reason: "No matching signature found",
  });
  expect(earlier).toMatchObject({
    service: "data",
    channel: "webhook",
    type: "member.updated",
    eventId: goodId,
    verdict: "verified",
    reason: null,
    body,
    headers: { "content-type": "application/json", "webhook-id": goodId },
  });
});

test("a logout token signed with the app's published key for this service is verified; another key's is refused", async () => {
  const goodJti = randomUUID();
  expect((await postLogout("compe", await logoutToken(signingKey, { aud: "compe", jti: goodJti }))).status).toBe(200);
  const stranger = (await generateKeyPair("ES256")).privateKey;
  const badJti = randomUUID();
  expect((await postLogout("compe", await logoutToken(stranger, { aud: "compe", jti: badJti }))).status).toBe(400);
  // A token for another service is not this one's, even when the signature is good.
  const misaddressedJti = randomUUID();
  const misaddressed = await postLogout("data", await logoutToken(signingKey, { aud: "compe", jti: misaddressedJti }));
  expect(misaddressed.status).toBe(400);

  const deliveries = await listCapturedDeliveries(directory);
  const byJti = (jti: string) => deliveries.find((delivery) => delivery.eventId === jti);
  expect(byJti(goodJti)).toMatchObject({
    service: "compe",
    channel: "logout",
    verdict: "verified",
    claims: { sub: "member-sub", sid: "session-1", aud: "compe" },
  });
  expect(byJti(badJti)).toMatchObject({ verdict: "rejected", reason: "signature verification failed" });
  expect(byJti(misaddressedJti)).toMatchObject({ service: "data", verdict: "rejected" });
  expect(byJti(misaddressedJti)?.reason).toContain("aud");
});

test("without the app's published keys a logout token can be neither verified nor refused: recorded as such, answered 200", async () => {
  const keys = publishedKeys;
  publishedKeys = null;
  try {
    const jti = randomUUID();
    expect((await postLogout("data", await logoutToken(signingKey, { aud: "data", jti }))).status).toBe(200);
    const [latest] = await listCapturedDeliveries(directory);
    expect(latest).toMatchObject({ eventId: jti, verdict: "unverifiable", reason: expect.stringContaining("404") });
  } finally {
    publishedKeys = keys;
  }
});

test("only the four services' endpoints exist, and only for POST", async () => {
  expect((await fetch(`${capture.url}/elsewhere/webhooks`, { method: "POST" })).status).toBe(404);
  expect((await fetch(webhookUrlOf(capture.url, "data"))).status).toBe(405);
});
