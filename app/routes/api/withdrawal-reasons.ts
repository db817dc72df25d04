import { ApiError } from "~/api/api-response.server";
import { apiRoute, limitAttempts, limitPasswordCheck } from "~/api/api-handler.server";
import { cancelMembership } from "~/domain/account/withdrawal.server";

const api = apiRoute({
  POST: {
    operation: "cancelMembership",
    handle: async (call) => {
      const { member, body, locale, identity } = call;
      // The address look-up is an AdminGetUser like refresh-user's: counted with it before Cognito is asked.
      await limitAttempts(call, "memberRefresh");
      const { email } = await identity.getUser(member.sub);
      // The password check is a sign-in: it counts against the same limits as one (as on /my/withdrawal/).
      const passwordCheck = await limitPasswordCheck(call, email);
      const result = await cancelMembership(call, {
        sub: member.sub,
        email,
        password: body.password,
        reason: body.reason,
        detail: body.detail,
        locale,
      }).catch(async (error: unknown) => {
        await passwordCheck.settle({ refused: false });
        throw error;
      });
      await passwordCheck.settle({ refused: result.kind === "passwordMismatch" });
      if (result.kind === "passwordMismatch") throw new ApiError("password_mismatch");
      return { cancelled: true as const, endedSessions: result.endedSessions };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
