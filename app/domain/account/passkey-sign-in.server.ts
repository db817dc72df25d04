import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { logger } from "~/integrations/logger.server";
import { memberDirectory, memberPasskeys } from "~db/schema";
import type { PasskeyChallenge } from "~/integrations/cognito/passkey-flows.server";
import { DomainError } from "../domain-error.server";
import { openForPurpose, sealForPurpose } from "../sessions/refresh-tokens.server";
import { noteUnknownPasskeys, offeredCredentialIds } from "../security/factor-reconcile.server";
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

/** How long the browser may take over the passkey prompt: Cognito's challenge Session lasts 3 minutes by default. */
export const PASSKEY_REQUEST_TIMEOUT_MS = 180_000;

/**
 * The request options the browser gets, the same four fields for everyone: the challenge, the timeout, the relying
 * party and user verification. No `allowCredentials`: the member's passkeys are discoverable, the browser offers
 * this site's, and a list would tell anyone who asks which addresses hold passkeys and their credential ids.
 */
function requestOptionsFor(input: { challenge: string; rpId: string }): string {
  return JSON.stringify({
    challenge: input.challenge,
    timeout: PASSKEY_REQUEST_TIMEOUT_MS,
    rpId: input.rpId,
    userVerification: "required",
  });
}

/**
 * "Log in with a passkey", first call: Cognito's USER_AUTH flow with WEB_AUTHN preferred for the address typed.
 * Whatever the address (a member with passkeys, a member without, an unconfirmed or unknown one), the answer has the
 * same shape and costs the same one Cognito call: Cognito's challenge for a holder, or a challenge of our own that no
 * passkey can answer for the others (its state names no Cognito Session), so the button tells nobody which addresses
 * are members or hold passkeys. Passkeys Cognito offers for the member that our list lacks were added around our
 * pages: they are noted for removal (and the member told once) here, where Cognito names them.
 */
export async function beginPasskeySignIn(
  deps: Pick<SignInDependencies, "identity" | "config" | "db" | "clock">,
  input: { email: string },
): Promise<PasskeyChallengeState & { requestOptionsJson: string }> {
  const rpId = new URL(deps.config.origin).hostname;
  const challenge = await webAuthnChallengeOr("noPasskey", deps.identity.beginPasskeySignIn(input.email)).catch(
    (error: unknown) => {
      if (error instanceof DomainError && error.code === "noPasskey") return null;
      throw error;
    },
  );
  if (!challenge) {
    const decoy = randomBytes(32).toString("base64url");
    return {
      email: input.email,
      username: "",
      session: "",
      requestOptionsJson: requestOptionsFor({ challenge: decoy, rpId }),
    };
  }
  const cognitoOptions = JSON.parse(challenge.requestOptionsJson) as { challenge?: unknown };
  await noteUnknownPasskeysOffered(deps, { email: input.email, requestOptionsJson: challenge.requestOptionsJson });
  return {
    email: input.email,
    username: challenge.username,
    session: challenge.session,
    requestOptionsJson: requestOptionsFor({ challenge: String(cognitoOptions.challenge ?? ""), rpId }),
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
  deps: Pick<SignInDependencies, "identity" | "db" | "config" | "clock">,
  input: { credentialId: string },
): Promise<PasskeyChallengeState & { requestOptionsJson: string }> {
  const [owner] = await deps.db
    .select({ sub: memberPasskeys.sub, email: memberDirectory.email })
    .from(memberPasskeys)
    .leftJoin(memberDirectory, eq(memberDirectory.sub, memberPasskeys.sub))
    .where(eq(memberPasskeys.credentialId, input.credentialId));
  if (!owner) throw new DomainError("passkeyRefused");
  // The staff directory mirrors Cognito on its own schedule: a member who signed up since is asked of Cognito.
  const email = owner.email ?? (await emailAtCognito(deps, owner.sub));
  const challenge = await beginPasskeySignIn(deps, { email });
  const options = JSON.parse(challenge.requestOptionsJson) as Record<string, unknown>;
  const requestOptionsJson = JSON.stringify({
    ...options,
    allowCredentials: [{ type: "public-key", id: input.credentialId }],
  });
  return { ...challenge, requestOptionsJson };
}

/** The member's address as Cognito has it; a member Cognito no longer has reads as a wrong passkey. */
async function emailAtCognito(deps: Pick<SignInDependencies, "identity">, sub: string): Promise<string> {
  try {
    return (await deps.identity.getUser(sub)).email;
  } catch (error) {
    if (error instanceof DomainError && error.code === "userNotFound") throw new DomainError("passkeyRefused");
    throw error;
  }
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
 *
 * Only a passkey our list holds for this member signs in (docs/security.md, "Our record of second factors is the
 * truth"): one Cognito holds that our pages did not add is refused before Cognito is asked (the first call noted it); a
 * challenge of our own (an address without passkeys) is refused as any wrong passkey.
 */
export async function completePasskeySignIn(
  deps: SignInDependencies,
  input: BrowserSignIn & { challenge: PasskeyChallengeState; credential: { id: string } & Record<string, unknown> },
): Promise<SignInResult> {
  const { challenge, credential } = input;
  if (!challenge.session) throw new DomainError("passkeyRefused");
  const [owner] = await deps.db
    .select({ sub: memberPasskeys.sub })
    .from(memberPasskeys)
    .where(eq(memberPasskeys.credentialId, credential.id));
  if (!owner) throw new DomainError("passkeyRefused");
  const tokens = await deps.identity.answerPasskeyChallenge({
    username: challenge.username,
    session: challenge.session,
    credentialJson: JSON.stringify(credential),
  });
  const sub = String(decodeJwt(tokens.idToken).sub);
  if (sub !== owner.sub) {
    if (tokens.refreshToken) await deps.identity.revokeRefreshToken(tokens.refreshToken).catch(() => undefined);
    throw new DomainError("passkeyRefused");
  }
  const result = await startSignedInSession(deps, tokens, { ...input, email: challenge.email });
  await recordPasskeyUse(deps.db, { sub, credentialId: credential.id, at: deps.clock.now() });
  return result;
}

/**
 * The passkeys in Cognito's challenge for the address's member that our list lacks, noted (noteUnknownPasskeys records
 * and mails once). Never fails the sign-in: a note that cannot be written waits for the next chance.
 */
async function noteUnknownPasskeysOffered(
  deps: Pick<SignInDependencies, "db" | "identity" | "clock">,
  input: { email: string; requestOptionsJson: string },
): Promise<void> {
  const offered = offeredCredentialIds(input.requestOptionsJson);
  if (offered.length === 0) return;
  try {
    const [member] = await deps.db
      .select({ sub: memberDirectory.sub, email: memberDirectory.email, locale: memberDirectory.locale })
      .from(memberDirectory)
      .where(eq(memberDirectory.emailKey, input.email.trim().toLowerCase()));
    if (!member) return;
    const locale = member.locale === "en" ? "en" : "ja";
    await noteUnknownPasskeys(deps, { sub: member.sub, email: member.email, locale }, offered);
  } catch (error) {
    logger.warn({ err: error }, "could not compare Cognito's passkeys with the member's list");
  }
}
