import type { Database } from "../../db/client.server";
import { IdentityError } from "~/integrations/cognito/cognito-errors.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { AccountInfo } from "./auth-schemas";
import { writeProfile } from "./profile.server";

/**
 * Step 1. Always ends on "check your e-mail for the code", whatever the address's history, so the page never
 * tells whether an address is registered (SECURITY.md item 1): a new address gets a code; an address that
 * signed up but never confirmed gets its code again (spec section 4); a confirmed address gets nothing new.
 * `sub` is known only when a code went out: only then can the next steps finish.
 */
export async function startSignUp(
  identity: IdentityProvider,
  input: { email: string; password: string; locale: string },
): Promise<{ sub: string | null }> {
  try {
    const { sub } = await identity.signUp(input);
    return { sub };
  } catch (error) {
    if (!(error instanceof IdentityError) || error.code !== "usernameExists") throw error;
  }
  const existing = await identity.getUser(input.email);
  if (existing.confirmed) return { sub: null };
  await identity.resendConfirmationCode(input.email);
  return { sub: existing.sub };
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
