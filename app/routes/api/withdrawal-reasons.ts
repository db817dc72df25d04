import { ApiError } from "~/api/api-response.server";
import { apiRoute } from "~/api/api-handler.server";
import { countAuthAttempt } from "~/domain/rate-limit.server";
import { cancelMembership } from "~/domain/withdrawal.server";
import { getIdentityProvider } from "~/integrations/cognito/identity.server";

const api = apiRoute({
  POST: {
    operation: "cancelMembership",
    handle: async ({ member, body, db, config, locale, clientIp }) => {
      const identity = getIdentityProvider();
      const { email } = await identity.getUser(member.sub);
      // The password check is a sign-in: it counts against the same limits as one (as on /my/withdrawal/).
      const limit = await countAuthAttempt(db, { attempt: "signIn", email, clientIp, overrides: config.rateLimits });
      if (!limit.allowed) throw new ApiError("rate_limited", { headers: { "Retry-After": String(limit.retryAfterS) } });
      const result = await cancelMembership(
        { db, identity, secrets: config.sessionSecrets },
        { sub: member.sub, email, password: body.password, reason: body.reason, detail: body.detail, locale },
      );
      if (result.kind === "passwordMismatch") throw new ApiError("password_mismatch");
      return { cancelled: true as const, endedSessions: result.endedSessions };
    },
  },
});

export const loader = api.loader;
export const action = api.action;
