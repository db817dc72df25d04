import type { Config } from "~/config.server";
import { SIGN_UP_FLOW_MAX_AGE_S, signUpFlowCookie } from "~/cookies/app-cookies.server";
import { encryptSecret, openForPurpose } from "~/domain/sessions/refresh-tokens.server";

export type SignUpStep = "code" | "account" | "done";

export interface SignUpFlow {
  step: SignUpStep;
  email: string;
  /**
   * The user this flow's sign-up created. For an address that was confirmed before it is a random id that no user
   * has, so that the cookie looks the same and the code step fails like a typo.
   */
  sub: string;
}

/** Marks the sealed value as a sign-up flow, so that nothing else sealed under the same secrets passes for one. */
const FLOW_PURPOSE = "sign-up-flow";
/** The sealed text is padded to a multiple of this many characters, so that its length says nothing beyond the address's length. */
const FLOW_PADDING_BYTES = 64;

/**
 * Where the visitor is in the sign-up steps. Sealed with AES-256-GCM under the session secrets (and signed, like
 * every cookie here): nobody can read the address or the sub out of it, which would tell registered, unconfirmed
 * and new addresses apart, nor change it. It expires inside too, not only in the browser.
 */
export async function readSignUpFlow(config: Config, request: Request): Promise<SignUpFlow | null> {
  const sealed = await signUpFlowCookie.read(config, request);
  if (!sealed) return null;
  const fields = openForPurpose(sealed, { purpose: FLOW_PURPOSE, now: Date.now(), secrets: config.sessionSecrets });
  if (!fields) return null;
  const { step, email, sub } = fields;
  if (
    (step !== "code" && step !== "account" && step !== "done") ||
    typeof email !== "string" ||
    typeof sub !== "string"
  ) {
    return null;
  }
  return { step, email, sub };
}

export function saveSignUpFlow(config: Config, flow: SignUpFlow): Promise<string> {
  const plain = JSON.stringify({
    purpose: FLOW_PURPOSE,
    expiresAt: Date.now() + SIGN_UP_FLOW_MAX_AGE_S * 1000,
    step: flow.step,
    email: flow.email,
    sub: flow.sub,
  });
  // JSON allows trailing white space, so the padding needs no marker.
  const padded = plain.padEnd(Math.ceil(plain.length / FLOW_PADDING_BYTES) * FLOW_PADDING_BYTES);
  return signUpFlowCookie.serialize(config, encryptSecret(padded, config.sessionSecrets));
}

export function clearSignUpFlow(config: Config): Promise<string> {
  return signUpFlowCookie.clear(config);
}
