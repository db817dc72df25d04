import type { Database } from "../../db/client.server";
import { memberProfiles } from "../../db/schema";
import { IdentityError } from "~/integrations/cognito/cognito-errors.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import type { AccountInfo } from "./auth-schemas";

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
  input: { sub: string; email: string; info: AccountInfo; referrerService: string | null },
): Promise<void> {
  const { info } = input;
  const profile = {
    familyName: info.familyName,
    givenName: info.givenName,
    birthYear: info.birthYear,
    country: info.country,
    prefecture: info.prefecture,
    occupation: info.occupation,
    organization: info.organization,
    preferredLanguage: info.preferredLanguage,
    questionnaire: { q1: info.q1, q2: info.q2, q2Other: info.q2Other ?? null, q3: info.q3, q3Other: info.q3Other ?? null },
    updatedAt: new Date(),
  };
  // Cognito first: if it fails nothing is stored and the member can simply submit again.
  await deps.identity.updateAttributes(input.email, {
    family_name: info.familyName,
    given_name: info.givenName,
    locale: info.preferredLanguage,
  });
  await deps.db
    .insert(memberProfiles)
    .values({ sub: input.sub, referrerService: input.referrerService, ...profile })
    .onConflictDoUpdate({ target: memberProfiles.sub, set: profile });
}
