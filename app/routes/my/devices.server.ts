import { deactivateDevice, listActiveDevices, revokeRefreshTokens } from "~/domain/member-session.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import type { AppServices } from "~/services.server";

export function devicesOf({ db }: AppServices, member: SignedInMember) {
  return listActiveDevices(db, member.sub, { sessionId: member.sessionId });
}

/**
 * Deactivates one of the member's other browsers: its session row ends (it is signed out on its next request)
 * and its refresh token is revoked at Cognito, best effort. Never another member's session (the sub is part of
 * the match) and never this browser's own (that is what signing out is for). Null when nothing was deactivated,
 * a posted id that is no session id included.
 */
export async function deactivateMemberDevice(
  { db, identity, config }: AppServices,
  member: SignedInMember,
  deviceSessionId: string,
) {
  const ended = await deactivateDevice(db, {
    sub: member.sub,
    sessionId: deviceSessionId,
    exceptSessionId: member.sessionId,
  });
  if (ended) {
    await revokeRefreshTokens({ db, identity, secrets: config.sessionSecrets }, [
      ended.refreshTokenEncrypted,
    ]);
  }
  return ended;
}
