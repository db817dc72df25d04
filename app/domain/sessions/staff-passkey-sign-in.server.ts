import type { AppServices } from "~/services.server";
import { webAuthnChallengeOr } from "../account/passkey-sign-in.server";
import { recordPasskeyUse } from "../account/passkeys.server";
import { DomainError } from "../domain-error.server";
import { openForPurpose, sealForPurpose } from "./refresh-tokens.server";
import { openStaffSession, revokeQuietly, staffClaims } from "./staff-sessions.server";

/**
 * The staff sign-in with a passkey as the second factor, for staff whose only second factor is a passkey. The
 * password step (beginStaffSignIn answering "passkeyRequired") leaves a sealed step naming the address and the staff
 * member whose password was right; only with that step does the page ask Cognito for the WEB_AUTHN challenge on the
 * staff client (USER_AUTH), and only tokens of that same member open the staff session. A passkey alone signs a
 * member in, so without the step it must never reach the staff area.
 */
type StaffPasskeyServices = Pick<AppServices, "db" | "identity" | "config" | "clock">;

/** Marks a sealed value as this step, so that nothing else sealed under the same secrets passes for one. */
const STEP_PURPOSE = "staff-passkey-step";

export interface StaffPasskeyStep {
  /** The address typed at the password step: the challenge's user name, shown on the page, the rate limit's subject. */
  email: string;
  /** The staff member whose password was right: the passkey's tokens must be theirs. */
  sub: string;
  /** Cognito's WEB_AUTHN challenge, once the page asked for it. */
  challenge?: { username: string; session: string };
  /** Epoch ms: set at the password step and kept when the challenge is added. */
  expiresAt: number;
}

/**
 * The step sealed (AES-256-GCM under the session secrets): the browser can neither read Cognito's Session nor make
 * up a step of its own.
 */
export function sealStaffPasskeyStep(step: StaffPasskeyStep, secrets: string[]): string {
  const { expiresAt, ...value } = step;
  return sealForPurpose(value, { purpose: STEP_PURPOSE, expiresAt, secrets });
}

/** The step, or null when the value is not one, was tampered with or is past its time. */
export function openStaffPasskeyStep(
  sealed: string,
  input: { secrets: string[]; now: number },
): StaffPasskeyStep | null {
  const fields = openForPurpose(sealed, { purpose: STEP_PURPOSE, now: input.now, secrets: input.secrets });
  if (!fields) return null;
  const { email, sub, challenge, expiresAt } = fields;
  if (typeof email !== "string" || typeof sub !== "string" || typeof expiresAt !== "number") return null;
  const { username, session } = (challenge ?? {}) as Record<string, unknown>;
  const held = typeof username === "string" && typeof session === "string" ? { username, session } : undefined;
  return held ? { email, sub, expiresAt, challenge: held } : { email, sub, expiresAt };
}

/**
 * "Use your passkey": Cognito's WEB_AUTHN challenge on the staff client for the step's address, the step then holding
 * it. Cognito offering none (the passkey deleted since, the account gone) reads as a refused passkey.
 */
export async function beginStaffPasskeyChallenge(
  services: Pick<AppServices, "identity">,
  step: StaffPasskeyStep,
): Promise<{ step: StaffPasskeyStep; requestOptionsJson: string }> {
  const challenge = await webAuthnChallengeOr("passkeyRefused", services.identity.staffBeginPasskeySignIn(step.email));
  const { username, session, requestOptionsJson } = challenge;
  return { step: { ...step, challenge: { username, session } }, requestOptionsJson };
}

/**
 * The browser's assertion answers the step's challenge (Cognito checks it; a refusal is "passkeyRefused"); tokens of
 * anyone but the step's staff member are revoked and refused, and the staff session opens exactly as after the
 * authenticator's code. The passkey's last use is noted in the member's list.
 */
export async function completeStaffPasskeySignIn(
  services: StaffPasskeyServices,
  input: {
    step: StaffPasskeyStep;
    credential: { id: string } & Record<string, unknown>;
    previousSessionId?: string | undefined;
  },
): Promise<Awaited<ReturnType<typeof openStaffSession>>> {
  const { step } = input;
  if (!step.challenge) throw new DomainError("passkeyRefused");
  const tokens = await services.identity.staffAnswerPasskeyChallenge({
    ...step.challenge,
    credentialJson: JSON.stringify(input.credential),
  });
  const claims = await staffClaims(services, tokens.accessToken);
  if (claims.sub !== step.sub) {
    if (tokens.refreshToken) await revokeQuietly(services, tokens.refreshToken);
    throw new DomainError("passkeyRefused");
  }
  const opened = await openStaffSession(services, {
    email: step.email,
    tokens,
    previousSessionId: input.previousSessionId,
  });
  if (opened.kind === "opened") {
    await recordPasskeyUse(services.db, { sub: step.sub, credentialId: input.credential.id, at: services.clock.now() });
  }
  return opened;
}
