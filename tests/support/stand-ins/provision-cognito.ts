import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  ListGroupsCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
  SetUserPoolMfaConfigCommand,
  UpdateUserPoolCommand,
  DescribeUserPoolCommand,
  type CognitoIdentityProviderClient,
} from "@aws-sdk/client-cognito-identity-provider";
import { MIN_PASSWORD_LENGTH } from "~/domain/forms/field-schemas";
import { configureFunction } from "./stand-in/harness-client";
import { CUSTOM_MESSAGE_FUNCTION, PRE_TOKEN_GENERATION_FUNCTION, standInFunctionArn } from "./stand-in/function-names";
import {
  REQUIRED_CLIENT_SETTINGS,
  REQUIRED_FIRST_AUTH_FACTORS,
  REQUIRED_SERVER_CLIENT_SETTINGS,
  REQUIRED_STAFF_CLIENT_SETTINGS,
  requiredPasswordPolicy,
  requiredWebAuthnConfiguration,
} from "~/integrations/cognito/pool-contract.server";

export const STAND_IN_POOL_NAME = "member-account";
export const STAND_IN_CLIENT_NAME = "member-account-web";
export const STAND_IN_STAFF_CLIENT_NAME = "member-account-staff";
export const STAND_IN_SERVER_CLIENT_NAME = "member-account-server";

/** The pool's pre token generation trigger: the app's function (stand-in/lambda-functions.ts), V2_0. */
const PRE_TOKEN_GENERATION_CONFIG = {
  LambdaVersion: "V2_0",
  LambdaArn: standInFunctionArn(PRE_TOKEN_GENERATION_FUNCTION),
} as const;

/** The pool's Lambda triggers: the app's pre token generation function (V2_0) and its custom message function. */
const LAMBDA_CONFIG = {
  PreTokenGenerationConfig: PRE_TOKEN_GENERATION_CONFIG,
  CustomMessage: standInFunctionArn(CUSTOM_MESSAGE_FUNCTION),
} as const;

/** Where the stand-in's invitations send members when the caller names no app origin (the dev server's default). */
const DEFAULT_APP_ORIGIN = "http://127.0.0.1:3000";

/**
 * The pool's invitation (AdminCreateUserConfig.InviteMessageTemplate), which staff's CSV import makes Cognito send
 * with a temporary password. Cognito keeps ONE template per pool whatever the member's language, so it speaks
 * Japanese first and then English. Cognito requires both placeholders: {####} is the temporary password and
 * {username} the user name, which in a pool that signs in by e-mail is an opaque id, so the text tells the member to
 * sign in with the address instead. A real pool needs the same template (docs/deployment.md).
 */
export function invitationTemplate(appOrigin: string): { EmailSubject: string; EmailMessage: string } {
  const origin = appOrigin.replace(/\/$/, "");
  return {
    EmailSubject: "IDアカウントのご案内 / Your ID account",
    EmailMessage: [
      "IDアカウントをお作りしました。",
      "次のページで、このメールアドレスと下の仮パスワードでログインし、ご自身のパスワードを決めてください。",
      `${origin}/auth/sign-in/`,
      "仮パスワード: {####}",
      "仮パスワードの有効期限は7日です。期限が切れたら、ログインページの「パスワードをお忘れの方」から案内メールを送り直せます。",
      "（お問い合わせ用のアカウント番号: {username}）",
      "",
      "An ID account has been created for you.",
      "Log in on the page below with this e-mail address and the temporary password, then choose your own password.",
      `${origin}/en/auth/sign-in/`,
      "Temporary password: {####}",
      'The temporary password is valid for 7 days. Once it has expired, "Forgot your password?" on the login page mails a new invitation.',
      "(Account number for enquiries: {username})",
    ].join("\n"),
  };
}

export interface ProvisionedPool {
  userPoolId: string;
  clientId: string;
  staffClientId: string;
  serverClientId: string;
  admin: { email: string; password: string };
}

function isUserNotFound(error: unknown): boolean {
  return error instanceof Error && error.name === "UserNotFoundException";
}

const devAdminFile = (dataDir: string) => path.join(dataDir, "dev-admin.json");

/** The development admin a data directory's stand-in made, or null where none did. */
export async function readDevAdmin(dataDir: string): Promise<{ email: string; password: string } | null> {
  try {
    return JSON.parse(await readFile(devAdminFile(dataDir), "utf8")) as { email: string; password: string };
  } catch {
    return null;
  }
}

/** The development admin's credentials, made once per data directory and then reused. */
async function loadOrCreateAdminCredentials(dataDir: string): Promise<{ email: string; password: string }> {
  const existing = await readDevAdmin(dataDir);
  if (existing) return existing;
  const credentials = { email: "admin@example.com", password: `Dev-${randomBytes(9).toString("base64url")}` };
  await writeFile(devAdminFile(dataDir), JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
}

/**
 * Creates, only where missing, what the app expects of its user pool: the pool (with the invitation template, the
 * pre token generation trigger and the custom message trigger), the web, staff and server-only app clients as the deployment contract wants them
 * (pool-contract.server.ts), the admin group and a development admin account; and deploys the trigger with the
 * server-only client's id, as an operator does. Safe to run at every start. An existing client is left as it is:
 * the start-up check reports any difference.
 */
export async function provisionStandInPool(
  cognito: CognitoIdentityProviderClient,
  options: { standInEndpoint: string; dataDir: string; adminGroup: string; appOrigin?: string },
): Promise<ProvisionedPool> {
  const appOrigin = options.appOrigin ?? DEFAULT_APP_ORIGIN;
  const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
  let userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id;
  if (!userPoolId) {
    const created = await cognito.send(
      new CreateUserPoolCommand({
        PoolName: STAND_IN_POOL_NAME,
        UsernameAttributes: ["email"],
        AutoVerifiedAttributes: ["email"],
        AdminCreateUserConfig: {
          AllowAdminCreateUserOnly: false,
          InviteMessageTemplate: invitationTemplate(appOrigin),
        },
        UserPoolTier: "ESSENTIALS",
        Policies: {
          PasswordPolicy: requiredPasswordPolicy(MIN_PASSWORD_LENGTH),
          SignInPolicy: { AllowedFirstAuthFactors: [...REQUIRED_FIRST_AUTH_FACTORS] },
        },
        LambdaConfig: LAMBDA_CONFIG,
      }),
    );
    userPoolId = created.UserPool?.Id;
  }
  if (!userPoolId) throw new Error("The stand-in did not return a user pool id");
  // A pool an older checkout made may lack a trigger. UpdateUserPool resets what it is not given, as Cognito's does:
  // the pool's own settings are passed back with the triggers.
  const described = (await cognito.send(new DescribeUserPoolCommand({ UserPoolId: userPoolId }))).UserPool;
  if (!described?.LambdaConfig?.PreTokenGenerationConfig || !described.LambdaConfig.CustomMessage) {
    await cognito.send(
      new UpdateUserPoolCommand({
        UserPoolId: userPoolId,
        AutoVerifiedAttributes: described?.AutoVerifiedAttributes,
        AdminCreateUserConfig: described?.AdminCreateUserConfig,
        MfaConfiguration: described?.MfaConfiguration,
        Policies: described?.Policies,
        LambdaConfig: { ...described?.LambdaConfig, ...LAMBDA_CONFIG },
      }),
    );
  }
  // Set apart from the pool, as in Cognito: 2-step verification with an authenticator app, and passkeys made for
  // the app origin's host. At every start, so that a pool an older checkout made (or another origin) gets them too.
  await cognito.send(
    new SetUserPoolMfaConfigCommand({
      UserPoolId: userPoolId,
      MfaConfiguration: "OPTIONAL",
      SoftwareTokenMfaConfiguration: { Enabled: true },
      WebAuthnConfiguration: requiredWebAuthnConfiguration(appOrigin),
    }),
  );

  const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
  let clientId = clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId;
  if (!clientId) {
    const created = await cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: STAND_IN_CLIENT_NAME,
        ...REQUIRED_CLIENT_SETTINGS,
        // Beyond the contract: sibling-service engineers and the API tests sign members in with the SDK's
        // InitiateAuth (USER_PASSWORD_AUTH) to get tokens in development.
        ExplicitAuthFlows: [...REQUIRED_CLIENT_SETTINGS.ExplicitAuthFlows, "ALLOW_USER_PASSWORD_AUTH"],
      }),
    );
    clientId = created.UserPoolClient?.ClientId;
  }
  if (!clientId) throw new Error("The stand-in did not return an app client id");

  let staffClientId = clients.UserPoolClients?.find(
    (client) => client.ClientName === STAND_IN_STAFF_CLIENT_NAME,
  )?.ClientId;
  if (!staffClientId) {
    const created = await cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: STAND_IN_STAFF_CLIENT_NAME,
        ...REQUIRED_STAFF_CLIENT_SETTINGS,
      }),
    );
    staffClientId = created.UserPoolClient?.ClientId;
  }
  if (!staffClientId) throw new Error("The stand-in did not return the staff app client's id");

  let serverClientId = clients.UserPoolClients?.find(
    (client) => client.ClientName === STAND_IN_SERVER_CLIENT_NAME,
  )?.ClientId;
  if (!serverClientId) {
    const created = await cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: STAND_IN_SERVER_CLIENT_NAME,
        ...REQUIRED_SERVER_CLIENT_SETTINGS,
      }),
    );
    serverClientId = created.UserPoolClient?.ClientId;
  }
  if (!serverClientId) throw new Error("The stand-in did not return the server-only app client's id");
  await configureFunction(options.standInEndpoint, PRE_TOKEN_GENERATION_FUNCTION, {
    SERVER_CLIENT_IDS: serverClientId,
  });

  const groups = await cognito.send(new ListGroupsCommand({ UserPoolId: userPoolId }));
  if (!groups.Groups?.some((group) => group.GroupName === options.adminGroup)) {
    await cognito.send(new CreateGroupCommand({ UserPoolId: userPoolId, GroupName: options.adminGroup }));
  }

  const admin = await loadOrCreateAdminCredentials(options.dataDir);
  try {
    await cognito.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: admin.email }));
  } catch (error) {
    if (!isUserNotFound(error)) throw error;
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: userPoolId,
        Username: admin.email,
        MessageAction: "SUPPRESS",
        UserAttributes: [
          { Name: "email", Value: admin.email },
          { Name: "email_verified", Value: "true" },
          { Name: "locale", Value: "ja" },
        ],
      }),
    );
    await cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: userPoolId,
        Username: admin.email,
        Password: admin.password,
        Permanent: true,
      }),
    );
    await cognito.send(
      new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username: admin.email, GroupName: options.adminGroup }),
    );
  }
  return { userPoolId, clientId, staffClientId, serverClientId, admin };
}
