import { ApiError } from "~/api/api-response.server";
import { apiRoute, limitAttempts, memberBody } from "~/api/api-handler.server";
import { countPasskeys } from "~/domain/account/passkeys.server";
import { refreshMemberRecord } from "~/domain/account/profile.server";

const api = apiRoute({
  POST: {
    operation: "refreshUser",
    handle: async (call) => {
      const { member, body, db, identity } = call;
      if (body.userSub !== member.sub) throw new ApiError("forbidden");
      await limitAttempts(call, "memberRefresh");
      const [record, passkeyCount] = await Promise.all([
        refreshMemberRecord({ db, identity }, member.sub),
        countPasskeys(db, member.sub),
      ]);
      return { user: { ...memberBody(record).user, passkeyCount } };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
