/**
 * Contract: DescribeUserPool, DescribeUserPoolClient, GetGroup and the client settings the app's start-up check
 * reads (CreateUserPoolClient / UpdateUserPoolClient), as the Amazon Cognito user pools API reference describes
 * them, through the AWS SDK against the stand-in.
 */
import {
  AdminInitiateAuthCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  GetGroupCommand,
  UpdateUserPoolClientCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_GROUP, type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("pool-settings");
});

afterAll(async () => {
  await cognito?.stop();
});

const describeClient = async (ClientId: string) =>
  (await cognito.cognito.send(new DescribeUserPoolClientCommand({ UserPoolId: cognito.userPoolId, ClientId })))
    .UserPoolClient!;

describe("DescribeUserPool", () => {
  test("reports the pool's username and verified attributes, who may sign up, password policy and MFA setting", async () => {
    const { UserPool } = await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: cognito.userPoolId }));
    expect(UserPool).toMatchObject({
      Id: cognito.userPoolId,
      UsernameAttributes: ["email"],
      AutoVerifiedAttributes: ["email"],
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      MfaConfiguration: "OPTIONAL",
      Policies: {
        PasswordPolicy: {
          MinimumLength: 8,
          RequireLowercase: false,
          RequireUppercase: false,
          RequireNumbers: false,
          RequireSymbols: false,
        },
      },
    });
  });

  // API_CreateUserPool: without UsernameAttributes, usernames are free-form, not e-mail addresses.
  test("a pool created without UsernameAttributes reports none", async () => {
    const created = await cognito.cognito.send(new CreateUserPoolCommand({ PoolName: "usernames" }));
    const { UserPool } = await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: created.UserPool!.Id! }));
    expect(UserPool?.UsernameAttributes).toBeUndefined();
  });

  test("an unknown pool is ResourceNotFoundException", async () => {
    const error = await rejection(
      cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: "ap-northeast-1_none" })),
    );
    expect(error.name).toBe("ResourceNotFoundException");
  });
});

describe("DescribeUserPoolClient", () => {
  test("reports the provisioned client's flows, revocation, existence errors and refresh-token rotation", async () => {
    expect(await describeClient(cognito.clientId)).toMatchObject({
      ClientId: cognito.clientId,
      UserPoolId: cognito.userPoolId,
      ExplicitAuthFlows: [
        "ALLOW_ADMIN_USER_PASSWORD_AUTH",
        "ALLOW_REFRESH_TOKEN_AUTH",
        "ALLOW_USER_AUTH",
        "ALLOW_USER_PASSWORD_AUTH",
      ],
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: "LEGACY",
      RefreshTokenRotation: { Feature: "DISABLED" },
    });
    expect((await describeClient(cognito.clientId)).ClientSecret).toBeUndefined();
  });

  // API_CreateUserPoolClient: AccessTokenValidity and IdTokenValidity "in the unit set in TokenValidityUnits", 5
  // minutes at least; the tokens Cognito issues for the client last that long.
  test("the staff client reports its short token lifetimes, and its tokens last that long", async () => {
    expect(await describeClient(cognito.pool.staffClientId)).toMatchObject({
      ClientId: cognito.pool.staffClientId,
      PreventUserExistenceErrors: "ENABLED",
      AccessTokenValidity: 5,
      IdTokenValidity: 5,
      RefreshTokenValidity: 8,
      TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "hours" },
    });
    const email = cognito.email("staff-client");
    await cognito.confirmedMember(email);
    const result = await cognito.cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: cognito.pool.staffClientId,
        AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD },
      }),
    );
    const access = decodeJwt(result.AuthenticationResult!.AccessToken!);
    expect(access.client_id).toBe(cognito.pool.staffClientId);
    expect(access.exp! - access.iat!).toBe(5 * 60);
  });

  // API_CreateUserPoolClient: "If you don't include this parameter, token revocation is automatically activated for
  // the new user pool client"; PreventUserExistenceErrors "Defaults to LEGACY".
  test("a client that never chose reads as Cognito's defaults: revocation on, LEGACY existence errors", async () => {
    const created = await cognito.cognito.send(
      new CreateUserPoolClientCommand({ UserPoolId: cognito.userPoolId, ClientName: "defaults" }),
    );
    expect(created.UserPoolClient).toMatchObject({ EnableTokenRevocation: true, PreventUserExistenceErrors: "LEGACY" });
    const described = await describeClient(created.UserPoolClient!.ClientId!);
    expect(described).toMatchObject({ EnableTokenRevocation: true, PreventUserExistenceErrors: "LEGACY" });
    expect(described.RefreshTokenRotation).toBeUndefined();
  });

  test("reports the settings a client was created with, and those an update gives it", async () => {
    const created = await cognito.cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: "otherwise",
        ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
        EnableTokenRevocation: false,
        PreventUserExistenceErrors: "ENABLED",
        RefreshTokenRotation: { Feature: "ENABLED", RetryGracePeriodSeconds: 10 },
      }),
    );
    const ClientId = created.UserPoolClient!.ClientId!;
    const expected = {
      ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      EnableTokenRevocation: false,
      PreventUserExistenceErrors: "ENABLED",
      RefreshTokenRotation: { Feature: "ENABLED", RetryGracePeriodSeconds: 10 },
    };
    expect(created.UserPoolClient).toMatchObject(expected);
    expect(await describeClient(ClientId)).toMatchObject(expected);

    const updated = await cognito.cognito.send(
      new UpdateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientId,
        RefreshTokenRotation: { Feature: "DISABLED", RetryGracePeriodSeconds: 0 },
      }),
    );
    expect(updated.UserPoolClient?.RefreshTokenRotation).toEqual({ Feature: "DISABLED", RetryGracePeriodSeconds: 0 });
    expect((await describeClient(ClientId)).RefreshTokenRotation).toEqual({
      Feature: "DISABLED",
      RetryGracePeriodSeconds: 0,
    });
  });

  test("a client of another pool, or none, is ResourceNotFoundException", async () => {
    const error = await rejection(
      cognito.cognito.send(
        new DescribeUserPoolClientCommand({ UserPoolId: "ap-northeast-1_none", ClientId: cognito.clientId }),
      ),
    );
    expect(error.name).toBe("ResourceNotFoundException");
  });
});

describe("GetGroup", () => {
  test("finds the provisioned admin group; an unknown group is ResourceNotFoundException", async () => {
    const { Group } = await cognito.cognito.send(
      new GetGroupCommand({ UserPoolId: cognito.userPoolId, GroupName: ADMIN_GROUP }),
    );
    expect(Group).toMatchObject({ GroupName: ADMIN_GROUP, UserPoolId: cognito.userPoolId });
    const error = await rejection(
      cognito.cognito.send(new GetGroupCommand({ UserPoolId: cognito.userPoolId, GroupName: "no-such-group" })),
    );
    expect(error.name).toBe("ResourceNotFoundException");
  });

  test("a pool with no group at all answers ResourceNotFoundException too", async () => {
    const pool = await cognito.cognito.send(new CreateUserPoolCommand({ PoolName: "no-groups" }));
    const error = await rejection(
      cognito.cognito.send(new GetGroupCommand({ UserPoolId: pool.UserPool!.Id!, GroupName: ADMIN_GROUP })),
    );
    expect(error.name).toBe("ResourceNotFoundException");
  });
});
