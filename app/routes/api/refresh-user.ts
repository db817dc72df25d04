import { ApiError } from "~/api/api-response.server";
import { apiRoute, limitAttempts, memberBody } from "~/api/api-handler.server";
import { refreshMemberRecord } from "~/domain/account/profile.server";

const api = apiRoute({
  POST: {
    operation: "refreshUser",
    handle: async (call) => {
      const { member, body, db, identity } = call;
      if (body.userSub !== member.sub) throw new ApiError("forbidden");
      await limitAttempts(call, "memberRefresh");
      return memberBody(await refreshMemberRecord({ db, identity }, member.sub));
    },
  },
});

export const loader = api.loader;
export const action = api.action;
