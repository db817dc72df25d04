import { createServer } from "node:http";
import { once } from "node:events";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
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

const cognito = () => ({ region: "ap-northeast-1", userPoolId: POOL, clientId: CLIENT, endpoint });

function token(claims: Record<string, unknown>, kid = "key-1", expiresIn = "1h") {
  return new SignJWT({ token_use: "access", client_id: CLIENT, ...claims })
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
