import type { Config } from "~/config.server";
import type { StandIns } from "~/server/start-server";

/** The Cognito settings the embedded stack provisioned, as the app's config holds them. */
export function cognitoConfigOf(stack: StandIns): Config["cognito"] {
  return {
    region: stack.env.COGNITO_REGION!,
    endpoint: stack.env.COGNITO_ENDPOINT,
    userPoolId: stack.env.COGNITO_USER_POOL_ID!,
    clientId: stack.env.COGNITO_CLIENT_ID!,
    staffClientId: stack.env.COGNITO_STAFF_CLIENT_ID!,
    serverClientId: stack.env.COGNITO_SERVER_CLIENT_ID!,
  };
}
