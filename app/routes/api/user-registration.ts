import { apiRoute, limitAttempts, memberBody } from "~/api/api-handler.server";
import { refreshMemberRecord } from "~/domain/account/profile.server";
import { saveAccountInfo } from "~/domain/account/sign-up.server";

const api = apiRoute({
  POST: {
    operation: "registerUser",
    handle: async (call) => {
      const { member, body, db, identity } = call;
      // The same counters as the profile edit page: both are an AdminUpdateUserAttributes.
      await limitAttempts(call, "profileUpdate");
      const { referrer, ...info } = body;
      const deps = { db, identity };
      await saveAccountInfo(deps, { sub: member.sub, info, referrerService: referrer ?? null });
      return memberBody(await refreshMemberRecord(deps, member.sub));
    },
  },
});

export const loader = api.loader;
export const action = api.action;
