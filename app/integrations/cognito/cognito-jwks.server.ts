import { createRemoteJWKSet, type RemoteJWKSet } from "jose";
import type { Config } from "~/config.server";

/** A JWKS fetch slower than this counts as Cognito being unreachable. */
const JWKS_TIMEOUT_MS = 3_000;

/** The token issuer of the pool: Cognito's regional URL, or the stand-in's endpoint. */
export function cognitoIssuer(cognito: Config["cognito"]): string {
  const base = cognito.endpoint ?? `https://cognito-idp.${cognito.region}.amazonaws.com`;
  return `${base.replace(/\/$/, "")}/${cognito.userPoolId}`;
}

// One cached key set per pool and process (both module graphs share it): page views verify tokens against it
// locally. By the keys' URL, so that a process that serves one pool after another (a test worker) never checks a
// pool's tokens against another's keys.
const KEY = Symbol.for("member-account.jwks");
const registry = globalThis as unknown as Record<symbol, Map<string, RemoteJWKSet> | undefined>;

export function getJwks(cognito: Config["cognito"]): RemoteJWKSet {
  const keySets = (registry[KEY] ??= new Map());
  const url = `${cognitoIssuer(cognito)}/.well-known/jwks.json`;
  let keySet = keySets.get(url);
  if (!keySet) {
    keySet = createRemoteJWKSet(new URL(url), {
      timeoutDuration: JWKS_TIMEOUT_MS,
      // Keys are kept until a token names one we do not have (jose then fetches again, at most every 30 s):
      // with an expiring cache, a Cognito outage at the wrong moment would sign out every member.
      cacheMaxAge: Number.POSITIVE_INFINITY,
    });
    keySets.set(url, keySet);
  }
  return keySet;
}

/** True once the pool's signing keys are in the cache, fetching them if they are not yet. */
export async function isJwksLoaded(cognito: Config["cognito"]): Promise<boolean> {
  const jwks = getJwks(cognito);
  if (jwks.jwks()) return true;
  try {
    await jwks.reload();
    return jwks.jwks() !== undefined;
  } catch {
    return false;
  }
}
