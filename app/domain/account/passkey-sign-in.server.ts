import { decodeJwt } from "jose";
import { DomainError } from "../domain-error.server";
import { recordPasskeyUse } from "./passkeys.server";
import { type BrowserSignIn, type SignInDependencies, type SignInResult, startSignedInSession } from "./sign-in.server";

/** Cognito's WEB_AUTHN challenge for one address, kept by the browser between the two posts. */
export interface PasskeyChallengeState {
  email: string;
  username: string;
  session: string;
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
  const challenge = await deps.identity.beginPasskeySignIn(input.email).catch((error: unknown) => {
    if (
      error instanceof DomainError &&
      ["userNotFound", "invalidCredentials", "userNotConfirmed"].includes(error.code)
    ) {
      throw new DomainError("noPasskey", { cause: error });
    }
    throw error;
  });
  if (challenge.kind === "noPasskey") throw new DomainError("noPasskey");
  return {
    email: input.email,
    username: challenge.username,
    session: challenge.session,
    requestOptionsJson: challenge.requestOptionsJson,
  };
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
