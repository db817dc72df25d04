import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import { changePassword } from "~/domain/password-change.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import { sessionCookie } from "~/cookies/app-cookies.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { systemClock } from "~/services.server";

/**
 * Changes the signed-in member's password; every other sign-in of theirs is signed out. Returns this browser's
 * session cookie, renewed with its new sign-in, or null when it keeps the one it has.
 */
export async function changeMemberPassword(
  member: SignedInMember,
  input: { currentPassword: string; newPassword: string },
): Promise<string | null> {
  const { accessToken } = await changePassword(
    { db: getDatabase(), identity: getIdentityProvider(), config: getConfig(), clock: systemClock },
    { sub: member.sub, email: member.email, sessionId: member.sessionId, accessToken: member.accessToken, ...input },
  );
  return accessToken ? sessionCookie.serialize(getConfig(), { sid: member.sessionId, at: accessToken }) : null;
}
