import { exportJWK, generateKeyPair } from "jose";
import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { logoutSigningKeyProblems, logoutTokenJwks } from "~/domain/events/logout-tokens.server";
import { startServerProcess } from "../../support/server-process";

const base = { SESSION_SECRETS: "x".repeat(32) };

async function privateJwk(kid: string) {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "ES256" };
}

test("signing keys are needed only with a back-channel logout URI, and must be private ES256 JWKs with their own kids", async () => {
  const key = await privateJwk("a");
  const problemsOf = (env: Record<string, string>) => logoutSigningKeyProblems(parseConfig({ ...base, ...env }));
  expect(problemsOf({})).toEqual([]);
  expect(problemsOf({ SERVICE_LOGOUT_URI_COMPE: "http://localhost:9/logout" })).toEqual([
    "LOGOUT_TOKEN_SIGNING_KEYS is required with a back-channel logout URI (compe)",
  ]);
  expect(problemsOf({ LOGOUT_TOKEN_SIGNING_KEYS: JSON.stringify([key]) })).toEqual([]);
  expect(problemsOf({ LOGOUT_TOKEN_SIGNING_KEYS: "[{" })).toEqual([expect.stringMatching(/is not JSON/)]);
  const { d: _private, ...publicOnly } = key;
  expect(problemsOf({ LOGOUT_TOKEN_SIGNING_KEYS: JSON.stringify([publicOnly]) })).toEqual([
    expect.stringMatching(/each key is a private JWK/),
  ]);
  expect(problemsOf({ LOGOUT_TOKEN_SIGNING_KEYS: JSON.stringify([key, key]) })).toEqual([
    "LOGOUT_TOKEN_SIGNING_KEYS: each key needs its own kid",
  ]);
  expect(logoutTokenJwks(JSON.stringify([key])).keys[0]).not.toHaveProperty("d");
});

// Dev and preview make keys of their own when none are set; keys an operator sets and the server cannot read stop it.
test("dev refuses to start with signing keys it cannot read, saying why in one line", async () => {
  const start = startServerProcess("dev", {
    LOGOUT_TOKEN_SIGNING_KEYS: '{"kty":"EC"}',
    SERVICE_LOGOUT_URI_DATA: "http://localhost:9/logout",
  });
  await expect(start).rejects.toThrow(
    /Logout tokens cannot be signed:\n {2}- LOGOUT_TOKEN_SIGNING_KEYS: each key is a private JWK/,
  );
});
