import { createServer } from "node:http";
import { once } from "node:events";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, afterEach, beforeAll, expect, test, vi } from "vitest";
import { verifyAccessToken } from "~/integrations/cognito/access-token.server";

// A local JWKS endpoint standing in for the pool's; its answer can be switched to a failure.
let jwksFails = false;
let privateKey: CryptoKey;
let publicJwk: Record<string, unknown>;
const server = createServer((_req, res) => {
  if (jwksFails) {
    res.writeHead(500).end();
    return;
  }
  res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: [publicJwk] }));
});
let endpoint = "";
const POOL = "ap-northeast-1_test";
const CLIENT = "client-1";

beforeAll(async () => {
  const keys = await generateKeyPair("RS256");
  privateKey = keys.privateKey;
  publicJwk = { ...(await exportJWK(keys.publicKey)), kid: "key-1", alg: "RS256", use: "sig" };
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(() => {
  server.close();
});

afterEach(() => {
  vi.useRealTimers();
});

const cognito = () => ({ region: "ap-northeast-1", userPoolId: POOL, clientId: CLIENT, endpoint });

/** A token of its own each time (its jti), so no test gets a verdict another test's token left in memory. */
function token(claims: Record<string, unknown>, kid = "key-1", expiresIn: string | number = "1h") {
  return new SignJWT({ token_use: "access", client_id: CLIENT, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "RS256", kid })
    .setSubject("11111111-1111-1111-1111-111111111111")
    .setIssuer(`${endpoint}/${POOL}`)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(privateKey);
}

test("keys that cannot be fetched make a token unverifiable, not invalid", async () => {
  // Runs first: nothing is cached yet, and the pool's key endpoint answers 500.
  jwksFails = true;
  expect(await verifyAccessToken(await token({}), cognito())).toEqual({ valid: false, unverifiable: true });
  jwksFails = false;
  expect((await verifyAccessToken(await token({}), cognito())).valid).toBe(true);
  // Once cached, the keys keep verifying tokens while the endpoint is down.
  jwksFails = true;
  expect((await verifyAccessToken(await token({}), cognito())).valid).toBe(true);
  jwksFails = false;
});

test("a good access token passes; wrong use, client, issuer or an expired one do not", async () => {
  expect((await verifyAccessToken(await token({ "cognito:groups": ["admin"] }), cognito())).valid).toBe(true);
  expect(await verifyAccessToken(await token({ token_use: "id" }), cognito())).toEqual({
    valid: false,
    expired: false,
  });
  expect(await verifyAccessToken(await token({ client_id: "other" }), cognito())).toEqual({
    valid: false,
    expired: false,
  });
  expect(await verifyAccessToken(await token({}, "key-1", "-1s"), cognito())).toEqual({ valid: false, expired: true });
  const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
  expect(await verifyAccessToken(unsigned, cognito())).toEqual({ valid: false, expired: false });
});

test("a token passes only for the client it names: the members' by default, the staff client when named", async () => {
  const memberToken = await token({ "cognito:groups": ["admin"] });
  const staffToken = await token({ client_id: "staff-client", "cognito:groups": ["admin"] });
  expect((await verifyAccessToken(memberToken, cognito())).valid).toBe(true);
  expect(await verifyAccessToken(memberToken, cognito(), "staff-client")).toEqual({ valid: false, expired: false });
  expect((await verifyAccessToken(staffToken, cognito(), "staff-client")).valid).toBe(true);
  expect(await verifyAccessToken(staffToken, cognito())).toEqual({ valid: false, expired: false });
});

test("a token that passed passes again until it expires, only for the pool and client it passed for", async () => {
  vi.useFakeTimers({ toFake: ["Date"], now: new Date() });
  const expiresAt = Math.floor(Date.now() / 1000) + 60;
  const good = await token({ "cognito:groups": ["admin"] }, "key-1", expiresAt);
  const first = await verifyAccessToken(good, cognito());
  expect(first).toMatchObject({ valid: true, claims: { groups: ["admin"], expiresAt: new Date(expiresAt * 1000) } });
  expect(await verifyAccessToken(good, cognito())).toEqual(first);
  // Another app client of the same pool does not inherit the verdict.
  expect(await verifyAccessToken(good, { ...cognito(), clientId: "other" })).toEqual({ valid: false, expired: false });
  vi.setSystemTime((expiresAt - 1) * 1000);
  expect((await verifyAccessToken(good, cognito())).valid).toBe(true);
  vi.setSystemTime(expiresAt * 1000);
  expect(await verifyAccessToken(good, cognito())).toEqual({ valid: false, expired: true });
});
