import {
  AdminCreateUserCommand,
  AdminSetUserPasswordCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_POOL_NAME } from "~/server/embedded/provision-cognito";

export const TEST_PASSWORD = "correct-horse-battery";

/**
 * Creates a confirmed member directly in the e2e server's Cognito stand-in, through the AWS SDK: journeys that
 * are not about sign-up start signed-up without walking the sign-up pages.
 */
export async function createTestMember(standInPort: number, label: string): Promise<{ email: string; password: string }> {
  const cognito = createCognitoClient({
    region: "ap-northeast-1",
    endpoint: `http://127.0.0.1:${standInPort}`,
    userPoolId: "",
    clientId: "",
  });
  const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
  const UserPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id;
  if (!UserPoolId) throw new Error("The e2e stand-in has no member-account pool");
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await cognito.send(
    new AdminCreateUserCommand({
      UserPoolId,
      Username: email,
      MessageAction: "SUPPRESS",
      UserAttributes: [
        { Name: "email", Value: email },
        { Name: "email_verified", Value: "true" },
        { Name: "locale", Value: "ja" },
      ],
    }),
  );
  await cognito.send(
    new AdminSetUserPasswordCommand({ UserPoolId, Username: email, Password: TEST_PASSWORD, Permanent: true }),
  );
  cognito.destroy();
  return { email, password: TEST_PASSWORD };
}
