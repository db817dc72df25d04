import { AdminCreateUserCommand, AdminSetUserPasswordCommand } from "@aws-sdk/client-cognito-identity-provider";
import { connectToStandIn } from "./bearer-tokens";

export const TEST_PASSWORD = "correct-horse-battery";

/**
 * Creates a confirmed member directly in the e2e server's Cognito stand-in, through the AWS SDK: journeys that
 * are not about sign-up start signed-up without walking the sign-up pages.
 */
export async function createTestMember(
  standInPort: number,
  label: string,
): Promise<{ email: string; password: string }> {
  const sdk = await connectToStandIn(standInPort);
  const { cognito, userPoolId: UserPoolId } = sdk;
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
  sdk.destroy();
  return { email, password: TEST_PASSWORD };
}
