import type { Database } from "../../db/client.server";
import type { IdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { endOtherSessions, revokeRefreshTokens } from "./member-session.server";

export interface PasswordChangeDependencies {
  db: Database;
  identity: Pick<IdentityProvider, "changePassword" | "revokeRefreshToken">;
  secrets: string[];
}

/**
 * Changes the member's password with their access token (a wrong current password comes out as the IdentityError
 * "currentPasswordMismatch"), then signs out every other browser: their session rows end (which is what signs them
 * out on their next request) and their refresh tokens are revoked at Cognito, best effort. This browser stays.
 * Returns how many other sessions were ended.
 */
export async function changePassword(
  deps: PasswordChangeDependencies,
  input: { sub: string; sessionId: string; accessToken: string; currentPassword: string; newPassword: string },
): Promise<{ endedSessions: number }> {
  await deps.identity.changePassword({
    accessToken: input.accessToken,
    currentPassword: input.currentPassword,
    newPassword: input.newPassword,
  });
  const ended = await endOtherSessions(deps.db, input.sub, input.sessionId);
  await revokeRefreshTokens(deps, ended);
  return { endedSessions: ended.length };
}
