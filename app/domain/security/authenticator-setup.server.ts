import { openForPurpose, sealForPurpose } from "../sessions/refresh-tokens.server";

/** Marks the sealed value as an authenticator setup, so that nothing else sealed under the same secrets passes for one. */
const SETUP_PURPOSE = "authenticator-setup";

export interface AuthenticatorSetup {
  /** The member who started it: another member signing in on this browser never sees it. */
  sub: string;
  /** Cognito's secret (Base32), as AssociateSoftwareToken gave it. */
  secret: string;
}

/**
 * The secret between "Set up" and the first code, sealed (AES-256-GCM under the session secrets) with its member and
 * its expiry inside, so neither the browser nor anyone copying the cookie can read or change it, and an old one
 * opens to nothing. Only Cognito's answer to VerifySoftwareToken makes it the member's.
 */
export function sealAuthenticatorSetup(setup: AuthenticatorSetup, input: { secrets: string[]; expiresAt: number }) {
  return sealForPurpose(setup, { purpose: SETUP_PURPOSE, expiresAt: input.expiresAt, secrets: input.secrets });
}

export function openAuthenticatorSetup(
  sealed: string,
  input: { secrets: string[]; sub: string; now: number },
): AuthenticatorSetup | null {
  const fields = openForPurpose(sealed, { purpose: SETUP_PURPOSE, now: input.now, secrets: input.secrets });
  if (!fields) return null;
  const { sub, secret } = fields;
  if (sub !== input.sub || typeof secret !== "string") return null;
  return { sub, secret };
}
