import { AdminAddUserToGroupCommand } from "@aws-sdk/client-cognito-identity-provider";
import { connectToStandIn } from "./bearer-tokens";
import { createTestMember } from "./test-members";

/** The group the dev and preview servers use when ADMIN_GROUP is not set (app/server/dev-entry.ts). */
export const TEST_ADMIN_GROUP = "admin";

/** A confirmed member of the admin group, created directly in a server's Cognito stand-in (see createTestMember). */
export async function createTestAdmin(
  standInPort: number,
  label: string,
): Promise<{ email: string; password: string }> {
  const admin = await createTestMember(standInPort, label);
  const sdk = await connectToStandIn(standInPort);
  await sdk.cognito.send(
    new AdminAddUserToGroupCommand({ UserPoolId: sdk.userPoolId, Username: admin.email, GroupName: TEST_ADMIN_GROUP }),
  );
  sdk.destroy();
  return admin;
}
