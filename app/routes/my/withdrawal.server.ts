import { getDatabase } from "../../../db/client.server";
import { getConfig } from "~/config.server";
import { cancelMembership } from "~/domain/withdrawal.server";
import type { WithdrawalAnswers } from "~/domain/withdrawal-schema";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { systemClock } from "~/services.server";

/** Cancels the signed-in member's membership (password checked at Cognito; every session ends). */
export function cancelMemberMembership(
  member: SignedInMember,
  input: WithdrawalAnswers & { password: string; locale: string },
) {
  return cancelMembership(
    { db: getDatabase(), identity: getIdentityProvider(), config: getConfig(), clock: systemClock },
    {
      sub: member.sub,
      email: member.email,
      password: input.password,
      reason: input.reason,
      detail: input.detail,
      locale: input.locale,
    },
  );
}
