import type {
  UserPoolClientType,
  UserPoolType,
  WebAuthnConfigurationType,
} from "@aws-sdk/client-cognito-identity-provider";
import { expect, test } from "vitest";
import { MIN_PASSWORD_LENGTH } from "~/domain/forms/field-schemas";
import {
  type DescribedPool,
  identityPoolProblems,
  poolContractProblems,
} from "~/integrations/cognito/pool-contract.server";

const EXPECTED = {
  minimumPasswordLength: MIN_PASSWORD_LENGTH,
  adminGroup: "admin",
  appOrigin: "https://id.example.jp",
};
const WEB_AUTHN: WebAuthnConfigurationType = { RelyingPartyId: "id.example.jp", UserVerification: "required" };

/** A pool and client as DescribeUserPool / DescribeUserPoolClient report them for a deployment that fits. */
const POOL: UserPoolType = {
  Id: "ap-northeast-1_AbCdEf123",
  Name: "member-account",
  UsernameAttributes: ["email"],
  AutoVerifiedAttributes: ["email"],
  MfaConfiguration: "OPTIONAL",
  UserPoolTier: "ESSENTIALS",
  AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
  Policies: {
    PasswordPolicy: {
      MinimumLength: 8,
      RequireLowercase: false,
      RequireUppercase: false,
      RequireNumbers: false,
      RequireSymbols: false,
      TemporaryPasswordValidityDays: 7,
    },
    SignInPolicy: { AllowedFirstAuthFactors: ["PASSWORD", "WEB_AUTHN"] },
  },
  LambdaConfig: {
    PreTokenGenerationConfig: {
      LambdaVersion: "V2_0",
      LambdaArn: "arn:aws:lambda:ap-northeast-1:123456789012:function:member-account-pre-token-generation",
    },
    CustomMessage: "arn:aws:lambda:ap-northeast-1:123456789012:function:member-account-custom-message",
  },
};
const CLIENT: UserPoolClientType = {
  UserPoolId: POOL.Id,
  ClientId: "4example0client0id0000000",
  ClientName: "member-account-web",
  ExplicitAuthFlows: [
    "ALLOW_ADMIN_USER_PASSWORD_AUTH",
    "ALLOW_REFRESH_TOKEN_AUTH",
    "ALLOW_USER_AUTH",
    "ALLOW_USER_SRP_AUTH",
  ],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "LEGACY",
  RefreshTokenRotation: { Feature: "DISABLED", RetryGracePeriodSeconds: 0 },
};

const STAFF_CLIENT: UserPoolClientType = {
  UserPoolId: POOL.Id,
  ClientId: "5example0staff0client00000",
  ClientName: "member-account-staff",
  ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_AUTH"],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "ENABLED",
  AccessTokenValidity: 5,
  IdTokenValidity: 5,
  RefreshTokenValidity: 8,
  TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "hours" },
};

const SERVER_CLIENT: UserPoolClientType = {
  UserPoolId: POOL.Id,
  ClientId: "6example0server0client0000",
  ClientName: "member-account-server",
  ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "ENABLED",
  AccessTokenValidity: 10,
  IdTokenValidity: 10,
  RefreshTokenValidity: 60,
  TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "minutes" },
};

function problems(change: {
  pool?: Partial<UserPoolType>;
  client?: Partial<UserPoolClientType>;
  staffClient?: Partial<UserPoolClientType>;
  serverClient?: Partial<UserPoolClientType>;
  softwareTokenMfa?: boolean;
  webAuthn?: WebAuthnConfigurationType | undefined;
  adminGroupExists?: boolean;
}) {
  const described: DescribedPool = {
    pool: { ...POOL, ...change.pool },
    client: { ...CLIENT, ...change.client },
    staffClient: { ...STAFF_CLIENT, ...change.staffClient },
    serverClient: { ...SERVER_CLIENT, ...change.serverClient },
    softwareTokenMfa: change.softwareTokenMfa ?? true,
    webAuthn: "webAuthn" in change ? change.webAuthn : WEB_AUTHN,
    adminGroupExists: change.adminGroupExists ?? true,
  };
  return poolContractProblems(described, EXPECTED);
}

test("a pool and client that fit the contract give no problem", () => {
  expect(problems({})).toEqual([]);
  // Cognito's defaults for what a client never chose: LEGACY existence errors, no rotation.
  expect(problems({ client: { PreventUserExistenceErrors: undefined, RefreshTokenRotation: undefined } })).toEqual([]);
});

test("usernames other than the e-mail address are refused", () => {
  expect(problems({ pool: { UsernameAttributes: undefined, AliasAttributes: ["email"] } })).toEqual([
    `user pool ${POOL.Id}: UsernameAttributes is unset, must include "email" ` +
      "(members sign up and sign in with their e-mail address as the username)",
  ]);
});

test("codes that are not mailed are refused", () => {
  expect(problems({ pool: { AutoVerifiedAttributes: ["phone_number"] } })).toEqual([
    expect.stringContaining('AutoVerifiedAttributes is ["phone_number"], must include "email"'),
  ]);
});

test("a password policy that differs from the app's rule is refused, one line per setting", () => {
  const policy = { ...POOL.Policies!.PasswordPolicy!, MinimumLength: 12, RequireSymbols: true };
  expect(problems({ pool: { Policies: { ...POOL.Policies, PasswordPolicy: policy } } })).toEqual([
    expect.stringContaining("PasswordPolicy.MinimumLength is 12, must be 8"),
    expect.stringContaining("PasswordPolicy.RequireSymbols is true, must be false"),
  ]);
  expect(
    problems({
      pool: { Policies: { ...POOL.Policies, PasswordPolicy: { ...policy, MinimumLength: 6, RequireSymbols: false } } },
    }),
  ).toEqual([expect.stringContaining("PasswordPolicy.MinimumLength is 6, must be 8")]);
});

test("a pool where only administrators create users is refused: members sign themselves up", () => {
  expect(problems({ pool: { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true } } })).toEqual([
    expect.stringContaining("AdminCreateUserConfig.AllowAdminCreateUserOnly is true, must be false"),
  ]);
  expect(problems({ pool: { AdminCreateUserConfig: undefined } })).toEqual([]);
});

test("MFA must be optional with the authenticator app on: off leaves members no 2-step verification, required would ask for a set-up the app does not walk", () => {
  expect(problems({ pool: { MfaConfiguration: "ON" } })).toEqual([expect.stringContaining('MfaConfiguration is "ON"')]);
  expect(problems({ pool: { MfaConfiguration: "OFF" } })).toEqual([
    expect.stringContaining('MfaConfiguration is "OFF"'),
  ]);
  expect(problems({ pool: { MfaConfiguration: undefined } })).toEqual([expect.stringContaining('must be "OPTIONAL"')]);
  expect(problems({ pool: { MfaConfiguration: "OPTIONAL" } })).toEqual([]);
  expect(problems({ softwareTokenMfa: false })).toEqual([
    expect.stringContaining("SoftwareTokenMfaConfiguration.Enabled is not true"),
  ]);
});

test("a client secret, a missing auth flow, token revocation off, hidden existence errors and rotation are refused", () => {
  expect(
    problems({
      client: {
        ClientSecret: "secret",
        ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
        EnableTokenRevocation: false,
        PreventUserExistenceErrors: "ENABLED",
        RefreshTokenRotation: { Feature: "ENABLED", RetryGracePeriodSeconds: 10 },
      },
    }),
  ).toEqual([
    `app client ${CLIENT.ClientId}: has a client secret, must have none (the app sends no SECRET_HASH)`,
    expect.stringContaining('must include "ALLOW_ADMIN_USER_PASSWORD_AUTH"'),
    expect.stringContaining('must include "ALLOW_USER_AUTH"'),
    expect.stringContaining("EnableTokenRevocation is false, must be true"),
    expect.stringContaining('PreventUserExistenceErrors is "ENABLED", must be "LEGACY"'),
    expect.stringContaining('RefreshTokenRotation.Feature is "ENABLED", must be "DISABLED"'),
  ]);
  expect(problems({ client: { ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_USER_AUTH"] } })).toEqual([
    expect.stringContaining('must include "ALLOW_REFRESH_TOKEN_AUTH"'),
  ]);
  expect(problems({ client: { EnableTokenRevocation: undefined } })).toEqual([
    expect.stringContaining("EnableTokenRevocation is unset, must be true"),
  ]);
});

test("passkeys: a client without USER_AUTH, the Lite plan and a pool without passkey first factors are refused", () => {
  const flows: UserPoolClientType["ExplicitAuthFlows"] = ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"];
  expect(problems({ client: { ExplicitAuthFlows: flows } })).toEqual([
    `app client ${CLIENT.ClientId}: ExplicitAuthFlows is ${JSON.stringify(flows)}, must include "ALLOW_USER_AUTH" ` +
      "(sign-in, passkey sign-in and session refresh use AdminInitiateAuth)",
  ]);
  expect(problems({ pool: { UserPoolTier: "LITE" } })).toEqual([
    `user pool ${POOL.Id}: UserPoolTier is "LITE", must be "ESSENTIALS" or "PLUS" (passkeys and access token customization need one of these plans)`,
  ]);
  expect(problems({ pool: { UserPoolTier: "PLUS" } })).toEqual([]);
  expect(
    problems({ pool: { Policies: { ...POOL.Policies, SignInPolicy: { AllowedFirstAuthFactors: ["PASSWORD"] } } } }),
  ).toEqual([
    expect.stringContaining('Policies.SignInPolicy.AllowedFirstAuthFactors is ["PASSWORD"], must include "WEB_AUTHN"'),
  ]);
});

test("passkeys: a relying party other than APP_ORIGIN's host, or none, and optional user verification are refused", () => {
  expect(problems({ webAuthn: { RelyingPartyId: "example.jp", UserVerification: "required" } })).toEqual([
    `user pool ${POOL.Id}: WebAuthnConfiguration.RelyingPartyId is "example.jp", must be "id.example.jp" ` +
      "(passkeys are made for APP_ORIGIN's host name and verify the member)",
  ]);
  expect(problems({ webAuthn: { RelyingPartyId: "id.example.jp", UserVerification: "preferred" } })).toEqual([
    expect.stringContaining('WebAuthnConfiguration.UserVerification is "preferred", must be "required"'),
  ]);
  expect(problems({ webAuthn: undefined })).toEqual([
    expect.stringContaining('WebAuthnConfiguration.RelyingPartyId is unset, must be "id.example.jp"'),
    expect.stringContaining('WebAuthnConfiguration.UserVerification is unset, must be "required"'),
  ]);
});

test("the staff client must be a client of its own, with short-lived tokens and no hint of which accounts exist", () => {
  expect(problems({ staffClient: { ClientId: CLIENT.ClientId } })).toEqual([
    expect.stringContaining("is the members' app client, must be a client of its own"),
  ]);
  // Cognito's defaults: 60-minute access and ID tokens, 30-day refresh tokens.
  expect(
    problems({
      staffClient: {
        AccessTokenValidity: undefined,
        IdTokenValidity: undefined,
        RefreshTokenValidity: undefined,
        TokenValidityUnits: undefined,
      },
    }),
  ).toEqual([
    expect.stringContaining("AccessTokenValidity is Cognito's default, must be at most 5 minutes"),
    expect.stringContaining("IdTokenValidity is Cognito's default, must be at most 5 minutes"),
    expect.stringContaining("RefreshTokenValidity is Cognito's default, must be at most 8 hours"),
  ]);
  expect(problems({ staffClient: { AccessTokenValidity: 1, TokenValidityUnits: { AccessToken: "hours" } } })).toEqual([
    expect.stringContaining("AccessTokenValidity is 1 hours, must be at most 5 minutes"),
    expect.stringContaining("IdTokenValidity is 5 hours, must be at most 5 minutes"),
    expect.stringContaining("RefreshTokenValidity is 8 days, must be at most 8 hours"),
  ]);
  expect(
    problems({
      staffClient: {
        PreventUserExistenceErrors: "LEGACY",
        EnableTokenRevocation: false,
        ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH"],
      },
    }),
  ).toEqual([
    expect.stringContaining('must include "ALLOW_REFRESH_TOKEN_AUTH"'),
    expect.stringContaining('must include "ALLOW_USER_AUTH"'),
    expect.stringContaining("EnableTokenRevocation is false, must be true"),
    expect.stringContaining('PreventUserExistenceErrors is "LEGACY", must be "ENABLED"'),
  ]);
});

test("a pool without the V2_0 pre token generation trigger is refused: its tokens could change credentials", () => {
  const refused = expect.stringContaining("LambdaConfig.PreTokenGenerationConfig is");
  const { CustomMessage } = POOL.LambdaConfig!;
  expect(problems({ pool: { LambdaConfig: { CustomMessage } } })).toEqual([refused]);
  const versionOne = { LambdaVersion: "V1_0" as const, LambdaArn: "arn:aws:lambda:x:1:function:f" };
  expect(problems({ pool: { LambdaConfig: { CustomMessage, PreTokenGenerationConfig: versionOne } } })).toEqual([
    refused,
  ]);
  const versionThree = { ...versionOne, LambdaVersion: "V3_0" as const };
  expect(problems({ pool: { LambdaConfig: { CustomMessage, PreTokenGenerationConfig: versionThree } } })).toEqual([]);
});

test("a pool without the custom message trigger is refused: its code mails would be in Cognito's English", () => {
  const { PreTokenGenerationConfig } = POOL.LambdaConfig!;
  expect(problems({ pool: { LambdaConfig: { PreTokenGenerationConfig } } })).toEqual([
    expect.stringContaining("LambdaConfig.CustomMessage is unset, must name the app's custom message trigger"),
  ]);
});

test("the server-only client is one of its own, signed in through by the app's AWS credentials alone, short-lived", () => {
  expect(problems({ serverClient: { ClientId: STAFF_CLIENT.ClientId } })).toEqual([
    expect.stringContaining("is the members' or the staff app client, must be a client of its own"),
  ]);
  // A flow anyone can call with a password would mint tokens that change credentials at Cognito.
  for (const flow of [
    "ALLOW_USER_PASSWORD_AUTH",
    "ALLOW_USER_SRP_AUTH",
    "ALLOW_USER_AUTH",
    "ALLOW_CUSTOM_AUTH",
  ] as const) {
    expect(
      problems({ serverClient: { ExplicitAuthFlows: [...SERVER_CLIENT.ExplicitAuthFlows!, flow] } }),
      flow,
    ).toEqual([expect.stringContaining('must be ["ALLOW_ADMIN_USER_PASSWORD_AUTH","ALLOW_REFRESH_TOKEN_AUTH"]')]);
  }
  expect(problems({ serverClient: { AllowedOAuthFlowsUserPoolClient: true, AllowedOAuthFlows: ["code"] } })).toEqual([
    expect.stringContaining("allows OAuth flows, must allow none"),
  ]);
  expect(problems({ serverClient: { ClientSecret: "secret" } })).toEqual([
    expect.stringContaining("has a client secret, must have none"),
  ]);
  expect(
    problems({
      serverClient: {
        AccessTokenValidity: undefined,
        IdTokenValidity: undefined,
        RefreshTokenValidity: undefined,
        TokenValidityUnits: undefined,
      },
    }),
  ).toEqual([
    expect.stringContaining("AccessTokenValidity is Cognito's default, must be at most 10 minutes"),
    expect.stringContaining("IdTokenValidity is Cognito's default, must be at most 10 minutes"),
    expect.stringContaining("RefreshTokenValidity is Cognito's default, must be at most 60 minutes"),
  ]);
});

test("a missing admin group is refused, by its configured name", () => {
  expect(problems({ adminGroupExists: false })).toEqual([
    `user pool ${POOL.Id}: group "admin" (ADMIN_GROUP) does not exist (staff pages need it)`,
  ]);
});

test("a pool that cannot be read stops the start too, naming the permissions the check needs", async () => {
  const denied = Object.assign(new Error("User is not authorized to perform: cognito-idp:DescribeUserPoolClient"), {
    name: "AccessDeniedException",
  });
  const problemsOfStart = await identityPoolProblems({ describePool: () => Promise.reject(denied) }, EXPECTED);
  expect(problemsOfStart).toEqual([
    "could not read the user pool's settings (AccessDeniedException: User is not authorized to perform: " +
      "cognito-idp:DescribeUserPoolClient); the app's AWS role needs cognito-idp:DescribeUserPool, " +
      "cognito-idp:DescribeUserPoolClient, cognito-idp:GetUserPoolMfaConfig and cognito-idp:GetGroup on the pool",
  ]);
  const fitting = await identityPoolProblems(
    {
      describePool: (group) =>
        Promise.resolve({
          pool: POOL,
          client: CLIENT,
          staffClient: STAFF_CLIENT,
          serverClient: SERVER_CLIENT,
          softwareTokenMfa: true,
          webAuthn: WEB_AUTHN,
          adminGroupExists: group === "admin",
        }),
    },
    EXPECTED,
  );
  expect(fitting).toEqual([]);
});
