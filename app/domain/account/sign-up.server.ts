import { randomUUID } from "node:crypto";
import type { Database } from "~db/client.server";
import type { Locale } from "~/i18n/locales";
import { DomainError } from "../domain-error.server";
import type { IdentityProvider, IdentityUser } from "~/integrations/cognito/identity-provider.server";
import type { AccountInfo } from "../forms/sign-up-schemas";
import { refuseWeakPassword } from "./password-strength.server";
import { writeProfile } from "./profile.server";

/** Cognito's UserStatus of a sign-up whose code was never entered. */
export const UNCONFIRMED_STATUS = "UNCONFIRMED";

export type SignUpIdentity = Pick<
  IdentityProvider,
  "findUser" | "deleteUser" | "signUp" | "confirmSignUp" | "resendConfirmationCode"
>;

/**
 * Deletes a user nobody owns yet: a sign-up that was never confirmed, so that whoever proves the address next
 * starts clean (otherwise the first password typed for an address would win over the owner's),
 * or a legacy migration's half-made user. "Not found" counts as done.
 */
export async function deleteUserIfPresent(
  identity: Pick<IdentityProvider, "deleteUser">,
  email: string,
): Promise<void> {
  try {
    await identity.deleteUser(email);
  } catch (error) {
    if (!(error instanceof DomainError && error.code === "userNotFound")) throw error;
  }
}

/**
 * Where another kind of address makes one more Cognito call, this makes a harmless one in its place (a look-up of
 * a random name that no user has), so that the number of calls, and with it the time taken, does not tell new,
 * confirmed and unconfirmed addresses apart. A read: Cognito's largest quota, and no effect.
 */
async function balancingLookup(identity: SignUpIdentity): Promise<void> {
  await identity.findUser(randomUUID());
}

/**
 * Step 1. Always ends on "check your e-mail for the code", whatever the address's history, so the page never
 * tells whether an address is registered: a new address gets a code; an address that signed up
 * but never confirmed is signed up again with the password typed now, and gets a fresh code;
 * a confirmed address gets nothing. Every kind makes three calls: AdminGetUser, the deletion or a balancing
 * look-up, and SignUp (asked even when the address is known to be taken).
 * `sub` is the created user's; for a taken address a random id that no user has, so the code step cannot finish.
 * A password too easy to guess is refused first, before any call: by the typed values alone, the same for every
 * address (no name is known yet at this step, so the address is what it must not be made of).
 */
export async function startSignUp(
  identity: SignUpIdentity,
  input: { email: string; password: string; locale: string },
): Promise<{ sub: string }> {
  await refuseWeakPassword(input.password, { email: input.email });
  const existing = await identity.findUser(input.email);
  if (existing?.status === UNCONFIRMED_STATUS) await deleteUserIfPresent(identity, input.email);
  else await balancingLookup(identity);
  try {
    const { sub } = await identity.signUp(input);
    return { sub };
  } catch (error) {
    // Confirmed, or signed up by someone else a moment ago: their sign-up stands.
    if (!(error instanceof DomainError) || error.code !== "usernameExists") throw error;
    return { sub: randomUUID() };
  }
}

/** The user of the address if it is still the one this flow's sign-up created. */
async function userOfFlow(
  identity: SignUpIdentity,
  flow: { email: string; sub: string },
): Promise<IdentityUser | null> {
  const user = await identity.findUser(flow.email);
  return user?.sub === flow.sub ? user : null;
}

/**
 * Step 2. Confirms only the user this flow's own sign-up created. A later sign-up of the same address replaced
 * it (with the later password), and its code, mailed to the address's owner, must not confirm that one from
 * here; a taken address never had a user of this flow. Both read as a wrong code. A second submit after the
 * code worked (a double click) passes again without asking Cognito to confirm twice.
 */
export async function confirmSignUp(
  identity: SignUpIdentity,
  input: { email: string; sub: string; code: string },
): Promise<void> {
  const user = await userOfFlow(identity, input);
  if (!user) {
    await balancingLookup(identity);
    throw new DomainError("codeMismatch");
  }
  if (user.confirmed) return;
  await identity.confirmSignUp({ email: input.email, code: input.code });
}

/**
 * "Send the code again": only for this flow's own unconfirmed user; otherwise nothing is sent, as at step 1. The
 * code mail is in `locale`, the page's language.
 */
export async function resendSignUpCode(
  identity: SignUpIdentity,
  flow: { email: string; sub: string },
  locale: Locale,
): Promise<void> {
  const user = await userOfFlow(identity, flow);
  if (user?.status === UNCONFIRMED_STATUS) await identity.resendConfirmationCode({ email: flow.email, locale });
  else await balancingLookup(identity);
}

/** Step 3: the profile and questionnaire, in our database and (names, language) in Cognito. Safe to repeat. */
export async function saveAccountInfo(
  deps: { db: Database; identity: IdentityProvider },
  input: { sub: string; info: AccountInfo; referrerService: string | null },
): Promise<void> {
  const { q1, q2, q2Other, q3, q3Other, ...profile } = input.info;
  await writeProfile(deps, {
    sub: input.sub,
    profile,
    questionnaire: { q1, q2, q2Other: q2Other ?? null, q3, q3Other: q3Other ?? null },
    referrerService: input.referrerService,
  });
}
