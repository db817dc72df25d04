import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { memberDirectory, memberPasskeys } from "../../../db/schema";
import type { PasskeyChallenge } from "~/integrations/cognito/passkey-flows.server";
import { DomainError } from "../domain-error.server";
import { openForPurpose, sealForPurpose } from "../sessions/refresh-tokens.server";
import { recordPasskeyUse } from "./passkeys.server";
import { type BrowserSignIn, type SignInDependencies, type SignInResult, startSignedInSession } from "./sign-in.server";

/** Cognito's WEB_AUTHN challenge for one address, kept by the browser between the two posts. */
export interface PasskeyChallengeState {
  email: string;
  username: string;
  session: string;
}

/**
 * Cognito's WEB_AUTHN challenge, or `refusal` for every way there is none: an unknown address, an unconfirmed
 * account, a wrong user and no passkey all read the same, so the answer tells nobody which addresses are members.
 */
export async function webAuthnChallengeOr(
  refusal: "noPasskey" | "passkeyRefused",
  started: Promise<PasskeyChallenge>,
): Promise<Extract<PasskeyChallenge, { kind: "webAuthn" }>> {
  const challenge = await started.catch((error: unknown) => {
    if (
      error instanceof DomainError &&
      ["userNotFound", "invalidCredentials", "userNotConfirmed"].includes(error.code)
    ) {
      throw new DomainError(refusal, { cause: error });
    }
    throw error;
  });
  if (challenge.kind === "noPasskey") throw new DomainError(refusal);
  return challenge;
}

/**
 * "Sign in with a passkey", first call: Cognito's USER_AUTH flow with WEB_AUTHN preferred for the address typed.
 * An address Cognito does not know, and one without a passkey, both answer "noPasskey", so the button tells nobody
 * which addresses are members.
 */
export async function beginPasskeySignIn(
  deps: Pick<SignInDependencies, "identity">,
  input: { email: string },
): Promise<PasskeyChallengeState & { requestOptionsJson: string }> {
  const challenge = await webAuthnChallengeOr("noPasskey", deps.identity.beginPasskeySignIn(input.email));
  return {
    email: input.email,
    username: challenge.username,
    session: challenge.session,
    requestOptionsJson: challenge.requestOptionsJson,
  };
}

/**
 * Passkey autofill, the member's pick: the browser's conditional request answered with one of this site's passkeys,
 * whose id alone is posted (the assertion made over the page's own challenge proves nothing and is dropped). The id
 * is looked up in our list and stands for the member's address, which Cognito's USER_AUTH needs: the challenge is
 * begun for that member exactly as the button begins it, and its request options are narrowed to the passkey picked,
 * so the browser's second, real assertion uses that one and Cognito checks it. An id nobody has, an address Cognito
 * no longer signs in and a passkey unknown at Cognito all read "passkeyRefused", as a wrong passkey does.
 */
export async function beginPasskeyAutofillSignIn(
  deps: Pick<SignInDependencies, "identity" | "db">,
  input: { credentialId: string },
): Promise<PasskeyChallengeState & { requestOptionsJson: string }> {
  const [owner] = await deps.db
    .select({ email: memberDirectory.email })
    .from(memberPasskeys)
    .innerJoin(memberDirectory, eq(memberDirectory.sub, memberPasskeys.sub))
    .where(eq(memberPasskeys.credentialId, input.credentialId));
  if (!owner) throw new DomainError("passkeyRefused");
  const challenge = await beginPasskeySignIn(deps, { email: owner.email }).catch((error: unknown) => {
    throw error instanceof DomainError && error.code === "noPasskey"
      ? new DomainError("passkeyRefused", { cause: error })
      : error;
  });
  const options = JSON.parse(challenge.requestOptionsJson) as Record<string, unknown>;
  const requestOptionsJson = JSON.stringify({
    ...options,
    allowCredentials: [{ type: "public-key", id: input.credentialId }],
  });
  return { ...challenge, requestOptionsJson };
}

/** Marks a sealed value as a passkey challenge, so that nothing else sealed under the same secrets passes for one. */
const CHALLENGE_PURPOSE = "passkey-sign-in";

/**
 * The challenge between the two posts, sealed (AES-256-GCM under the session secrets) with its expiry inside: the
 * browser keeps it but can read neither Cognito's Session nor the address, which after an autofill pick the member
 * never typed and a credential id must not reveal.
 */
export function sealPasskeyChallenge(state: PasskeyChallengeState, input: { secrets: string[]; expiresAt: number }) {
  return sealForPurpose(state, { purpose: CHALLENGE_PURPOSE, expiresAt: input.expiresAt, secrets: input.secrets });
}

export function openPasskeyChallenge(
  sealed: string,
  input: { secrets: string[]; now: number },
): PasskeyChallengeState | null {
  const fields = openForPurpose(sealed, { purpose: CHALLENGE_PURPOSE, now: input.now, secrets: input.secrets });
  if (!fields) return null;
  const { email, username, session } = fields;
  if (typeof email !== "string" || typeof username !== "string" || typeof session !== "string") return null;
  return { email, username, session };
}

/**
 * Its second call: the browser's assertion answers the challenge (Cognito checks it; a refusal is "passkeyRefused"),
 * and the session starts exactly as after a password sign-in, device-limit screen and new-browser alert included. A
 * passkey is a second factor in itself (something held, unlocked on the device), so no code step follows. The
 * passkey's last use is then noted in the member's list.
 */
export async function completePasskeySignIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { challenge: PasskeyChallengeState; credential: { id: string } & Record<string, unknown> },
): Promise<SignInResult> {
  const tokens = await deps.identity.answerPasskeyChallenge({
    username: input.challenge.username,
    session: input.challenge.session,
    credentialJson: JSON.stringify(input.credential),
  });
  const result = await startSignedInSession(deps, tokens, { ...input, email: input.challenge.email });
  const sub = String(decodeJwt(tokens.idToken).sub);
  await recordPasskeyUse(deps.db, { sub, credentialId: input.credential.id, at: deps.clock.now() });
  return result;
}
