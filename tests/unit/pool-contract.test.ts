import type { UserPoolClientType, UserPoolType } from "@aws-sdk/client-cognito-identity-provider";
import { expect, test } from "vitest";
import { MIN_PASSWORD_LENGTH } from "~/domain/forms/field-schemas";
import {
  type DescribedPool,
  identityPoolProblems,
  poolContractProblems,
} from "~/integrations/cognito/pool-contract.server";

const EXPECTED = { minimumPasswordLength: MIN_PASSWORD_LENGTH, adminGroup: "admin" };

/** A pool and client as DescribeUserPool / DescribeUserPoolClient report them for a deployment that fits. */
const POOL: UserPoolType = {
  Id: "ap-northeast-1_AbCdEf123",
  Name: "member-account",
  UsernameAttributes: ["email"],
  AutoVerifiedAttributes: ["email"],
  MfaConfiguration: "OPTIONAL",
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
  },
};
const CLIENT: UserPoolClientType = {
  UserPoolId: POOL.Id,
  ClientId: "4example0client0id0000000",
  ClientName: "member-account-web",
  ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_SRP_AUTH"],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "LEGACY",
  RefreshTokenRotation: { Feature: "DISABLED", RetryGracePeriodSeconds: 0 },
};

function problems(change: {
  pool?: Partial<UserPoolType>;
  client?: Partial<UserPoolClientType>;
  adminGroupExists?: boolean;
  softwareTokenMfaEnabled?: boolean;
}) {
  const described: DescribedPool = {
    pool: { ...POOL, ...change.pool },
    client: { ...CLIENT, ...change.client },
    adminGroupExists: change.adminGroupExists ?? true,
    softwareTokenMfaEnabled: change.softwareTokenMfaEnabled ?? true,
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
  expect(problems({ pool: { Policies: { PasswordPolicy: policy } } })).toEqual([
    expect.stringContaining("PasswordPolicy.MinimumLength is 12, must be 8"),
    expect.stringContaining("PasswordPolicy.RequireSymbols is true, must be false"),
  ]);
  expect(
    problems({ pool: { Policies: { PasswordPolicy: { ...policy, MinimumLength: 6, RequireSymbols: false } } } }),
  ).toEqual([expect.stringContaining("PasswordPolicy.MinimumLength is 6, must be 8")]);
});

test("a pool where only administrators create users is refused: members sign themselves up", () => {
  expect(problems({ pool: { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true } } })).toEqual([
    expect.stringContaining("AdminCreateUserConfig.AllowAdminCreateUserOnly is true, must be false"),
  ]);
  expect(problems({ pool: { AdminCreateUserConfig: undefined } })).toEqual([]);
});

test("MFA must be optional with TOTP on: asked of members who turned on 2-step verification only", () => {
  expect(problems({ pool: { MfaConfiguration: "ON" } })).toEqual([expect.stringContaining('MfaConfiguration is "ON"')]);
  expect(problems({ pool: { MfaConfiguration: "OFF" } })).toEqual([
    expect.stringContaining('MfaConfiguration is "OFF", must be "OPTIONAL"'),
  ]);
  expect(problems({ softwareTokenMfaEnabled: false })).toEqual([
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
    expect.stringContaining("EnableTokenRevocation is false, must be true"),
    expect.stringContaining('PreventUserExistenceErrors is "ENABLED", must be "LEGACY"'),
    expect.stringContaining('RefreshTokenRotation.Feature is "ENABLED", must be "DISABLED"'),
  ]);
  expect(problems({ client: { ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH"] } })).toEqual([
    expect.stringContaining('must include "ALLOW_REFRESH_TOKEN_AUTH"'),
  ]);
  expect(problems({ client: { EnableTokenRevocation: undefined } })).toEqual([
    expect.stringContaining("EnableTokenRevocation is unset, must be true"),
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
          adminGroupExists: group === "admin",
          softwareTokenMfaEnabled: true,
        }),
    },
    EXPECTED,
  );
  expect(fitting).toEqual([]);
});
