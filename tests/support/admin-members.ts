import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { connectToStandIn } from "./bearer-tokens";
import { TEST_PASSWORD } from "./test-members";
import { TOTP_STEP_MS, totpCode } from "./totp-codes";

/** The e2e server's admin group: playwright.config.ts leaves ADMIN_GROUP at its default. */
const ADMIN_GROUP = "admin";

export interface StaffTestMember {
  sub: string;
  email: string;
  password: string;
}

/**
 * A confirmed member made directly in the stand-in, with the names and language the staff search looks at. Each
 * test passes its own unique values, so the js-on and js-off runs never find each other's members.
 */
export async function createNamedMember(
  standInPort: number,
  member: { email: string; familyName?: string; givenName?: string; locale?: "ja" | "en"; admin?: boolean },
): Promise<StaffTestMember> {
  const sdk = await connectToStandIn(standInPort);
  const { cognito, userPoolId: UserPoolId } = sdk;
  try {
    const attributes = [
      { Name: "email", Value: member.email },
      { Name: "email_verified", Value: "true" },
      { Name: "locale", Value: member.locale ?? "ja" },
      ...(member.familyName ? [{ Name: "family_name", Value: member.familyName }] : []),
      ...(member.givenName ? [{ Name: "given_name", Value: member.givenName }] : []),
    ];
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: member.email,
        MessageAction: "SUPPRESS",
        UserAttributes: attributes,
      }),
    );
    await cognito.send(
      new AdminSetUserPasswordCommand({ UserPoolId, Username: member.email, Password: TEST_PASSWORD, Permanent: true }),
    );
    if (member.admin) {
      await cognito.send(
        new AdminAddUserToGroupCommand({ UserPoolId, Username: member.email, GroupName: ADMIN_GROUP }),
      );
    }
    const user = await cognito.send(new AdminGetUserCommand({ UserPoolId, Username: member.email }));
    const sub = user.UserAttributes?.find((attribute) => attribute.Name === "sub")?.Value ?? "";
    return { sub, email: member.email, password: TEST_PASSWORD };
  } finally {
    sdk.destroy();
  }
}

/**
 * An admin of its own for one test, with its sub (the directory is refreshed by sub): sharing the development admin
 * would fill its device slots across tests.
 */
export function createStaffAdmin(standInPort: number, label: string): Promise<StaffTestMember> {
  return createNamedMember(standInPort, {
    email: `${label}-admin-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    admin: true,
  });
}

/** A staff member with an authenticator app, and the next time step whose code no sign-in has used yet. */
export interface StaffWithAuthenticator extends StaffTestMember {
  totpSecret: string;
  nextStep: number;
}

export const stepOf = (time: number) => Math.floor(time / TOTP_STEP_MS);

/** What must be left of a time step when a code of the step before it is sent, for a busy machine's slowest check. */
const STEP_LEFT_FOR_A_CHECK_MS = 10_000;

/**
 * The code that turns the authenticator app on: the previous time step's, so that the current and the next one are
 * left for two sign-ins straight away (`nextStep`). Cognito takes a code within one step of its own clock, so a code
 * of the previous step must be checked before the next step begins: near a step's end this waits for the next one.
 */
export async function firstAuthenticatorCode(totpSecret: string): Promise<{ code: string; nextStep: number }> {
  const left = TOTP_STEP_MS - (Date.now() % TOTP_STEP_MS);
  if (left < STEP_LEFT_FOR_A_CHECK_MS) await new Promise((resolve) => setTimeout(resolve, left + 1));
  const step = stepOf(Date.now());
  return { code: totpCode(totpSecret, { from: (step - 1) * TOTP_STEP_MS }), nextStep: step };
}

/**
 * The authenticator's code for its owner's next sign-in (a staff member's, or a member's app turned on with
 * firstAuthenticatorCode): a time step no earlier code used (the stand-in, as Cognito, refuses a step twice) and
 * within one step of now, waiting for the clock only when a test uses codes faster than the steps pass.
 */
export async function nextAuthenticatorCode(
  app: Pick<StaffWithAuthenticator, "totpSecret" | "nextStep">,
): Promise<string> {
  const step = Math.max(app.nextStep, stepOf(Date.now()));
  while (step > stepOf(Date.now()) + 1) await new Promise((resolve) => setTimeout(resolve, 1_000));
  app.nextStep = step + 1;
  return totpCode(app.totpSecret, { from: step * TOTP_STEP_MS + 1 });
}
