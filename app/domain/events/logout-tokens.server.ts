import { type JWK, SignJWT, importJWK } from "jose";
import { z } from "zod";
import { type Config, SIBLING_SERVICES } from "~/config.server";

/** A logout token is used at once: long enough for clocks a little apart, short enough that a copy is soon useless. */
export const LOGOUT_TOKEN_LIFETIME_S = 120;
/** The JWKS document may be cached this long; a new key is published at least this long before it signs. */
export const JWKS_MAX_AGE_S = 300;
/** OpenID Connect Back-Channel Logout 1.0's event: the one member of a logout token's `events` claim. */
export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";

const SigningKeySchema = z.object({
  kty: z.literal("EC"),
  crv: z.literal("P-256"),
  x: z.string().min(1),
  y: z.string().min(1),
  d: z.string().min(1),
  kid: z.string().min(1),
  alg: z.literal("ES256"),
});
const SigningKeysSchema = z.array(SigningKeySchema).min(1);

type SigningKey = z.infer<typeof SigningKeySchema>;

/** A published key: the private key's public part, for verifying logout tokens. */
export interface PublicSigningKey {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
  kid: string;
  alg: "ES256";
  use: "sig";
}

/** The keys in LOGOUT_TOKEN_SIGNING_KEYS: a JSON array of private ES256 JWKs, the first signs. */
function parseSigningKeys(raw: string): { keys: SigningKey[] } | { problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { problem: "LOGOUT_TOKEN_SIGNING_KEYS is not JSON: give a JSON array of private EC P-256 JWKs" };
  }
  const parsed = SigningKeysSchema.safeParse(json);
  if (!parsed.success) {
    return {
      problem:
        'LOGOUT_TOKEN_SIGNING_KEYS: each key is a private JWK {kty:"EC", crv:"P-256", x, y, d, kid, alg:"ES256"}, at least one',
    };
  }
  const kids = parsed.data.map((key) => key.kid);
  if (new Set(kids).size !== kids.length) return { problem: "LOGOUT_TOKEN_SIGNING_KEYS: each key needs its own kid" };
  return { keys: parsed.data };
}

/**
 * What keeps the server from signing logout tokens, as lines for the refusal to start: keys that cannot be read,
 * or none while a sibling service has a back-channel logout URI (production's configuration refuses that already;
 * dev and preview get keys from their data directory, so missing ones there are a set-up fault too).
 */
export function logoutSigningKeyProblems(config: Pick<Config, "siblingEvents" | "logoutTokenSigningKeys">): string[] {
  const raw = config.logoutTokenSigningKeys;
  if (raw === undefined) {
    const withLogout = SIBLING_SERVICES.filter((service) => config.siblingEvents[service].logoutUri);
    return withLogout.length > 0
      ? [`LOGOUT_TOKEN_SIGNING_KEYS is required with a back-channel logout URI (${withLogout.join(", ")})`]
      : [];
  }
  const parsed = parseSigningKeys(raw);
  return "problem" in parsed ? [parsed.problem] : [];
}

/** The JWKS document of /.well-known/jwks.json: every key's public part, so tokens of the previous key still verify. */
export function logoutTokenJwks(raw: string | undefined): { keys: PublicSigningKey[] } {
  if (raw === undefined) return { keys: [] };
  const parsed = parseSigningKeys(raw);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return {
    keys: parsed.keys.map(({ kty, crv, x, y, kid, alg }) => ({ kty, crv, x, y, kid, alg, use: "sig" })),
  };
}

export interface LogoutTokenClaims {
  /** The service the token is for (`aud`). */
  audience: string;
  sub: string;
  /** The session the service holds (the event's `sid`). */
  sid: string;
  /** The delivery's id: the same on every attempt, so the service can drop a token it has seen. */
  jti: string;
  issuedAt: Date;
}

export interface LogoutTokenSigner {
  sign(claims: LogoutTokenClaims): Promise<string>;
}

/**
 * Signs OpenID Connect Back-Channel Logout 1.0 logout tokens with the first key of LOGOUT_TOKEN_SIGNING_KEYS
 * (ES256, `typ: logout+jwt`, its `kid`), issued by `issuer` (the app's origin); never a `nonce`, which the
 * specification forbids. Null when no keys are configured.
 */
export async function createLogoutTokenSigner(
  raw: string | undefined,
  issuer: string,
): Promise<LogoutTokenSigner | null> {
  if (raw === undefined) return null;
  const parsed = parseSigningKeys(raw);
  if ("problem" in parsed) throw new Error(parsed.problem);
  const signingKey = parsed.keys[0]!;
  const key = await importJWK(signingKey as JWK, "ES256");
  return {
    sign({ audience, sub, sid, jti, issuedAt }) {
      const iat = Math.floor(issuedAt.getTime() / 1000);
      return new SignJWT({ sid, events: { [BACKCHANNEL_LOGOUT_EVENT]: {} } })
        .setProtectedHeader({ alg: "ES256", typ: "logout+jwt", kid: signingKey.kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(sub)
        .setJti(jti)
        .setIssuedAt(iat)
        .setExpirationTime(iat + LOGOUT_TOKEN_LIFETIME_S)
        .sign(key);
    },
  };
}
