import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import { changePassword } from "~/domain/password-change.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import type { SignedInMember } from "~/middleware/member-session.server";

/** Changes the signed-in member's password; every other browser of theirs is signed out. */
export function changeMemberPassword(
  member: SignedInMember,
  input: { currentPassword: string; newPassword: string },
) {
  return changePassword(
    { db: getDatabase(), identity: getIdentityProvider(), secrets: getConfig().sessionSecrets },
    { sub: member.sub, sessionId: member.sessionId, accessToken: member.accessToken, ...input },
  );
}
