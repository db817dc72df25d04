import { apiRoute, limitAttempts, memberBody } from "~/api/api-handler.server";
import { refreshMemberRecord } from "~/domain/profile.server";
import { saveAccountInfo } from "~/domain/sign-up.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";

const api = apiRoute({
  POST: {
    operation: "registerUser",
    handle: async (call) => {
      const { member, body, db } = call;
      // The same counters as the profile edit page: both are an AdminUpdateUserAttributes.
      await limitAttempts(call, "profileUpdate");
      const { referrer, ...info } = body;
      const deps = { db, identity: getIdentityProvider() };
      await saveAccountInfo(deps, { sub: member.sub, info, referrerService: referrer ?? null });
      return memberBody(await refreshMemberRecord(deps, member.sub));
    },
  },
});

export const loader = api.loader;
export const action = api.action;
