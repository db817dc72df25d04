import { ApiError } from "~/api/api-response.server";
import { apiRoute, limitAttempts, memberBody } from "~/api/api-handler.server";
import { refreshMemberRecord } from "~/domain/profile.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";

const api = apiRoute({
  POST: {
    operation: "refreshUser",
    handle: async (call) => {
      const { member, body, db } = call;
      if (body.userSub !== member.sub) throw new ApiError("forbidden");
      await limitAttempts(call, "memberRefresh");
      return memberBody(await refreshMemberRecord({ db, identity: getIdentityProvider() }, member.sub));
    },
  },
});

export const loader = api.loader;
export const action = api.action;
