/**
 * Contract: the access token's scopes, as the Amazon Cognito developer guide and API reference describe them, with
 * the pool's pre token generation trigger (the app's, app/integrations/cognito/pre-token-generation.ts) that the
 * deployment contract requires:
 * - "Understanding the access token": tokens from the API's sign-in flows carry `aws.cognito.signin.user.admin`,
 *   the scope that authorizes the user's self-service operations (and the only scope such tokens get:
 *   aws-amplify/amplify-js#1884, re:Post "custom scopes in the access token when I make an InitiateAuth call").
 * - "Pre token generation Lambda trigger": with LambdaConfig.PreTokenGenerationConfig at LambdaVersion V2_0, Cognito
 *   invokes the function at every token generation (sign-in, challenge answered, refresh: TokenGeneration_*) with
 *   `callerContext.clientId`, and applies its `claimsAndScopeOverrideDetails.accessTokenGeneration.scopesToSuppress`
 *   (and `scopesToAdd`) to the access token's `scope` claim; V1_0 customizes the ID token only. A function Cognito
 *   cannot invoke fails the sign-in with UnexpectedLambdaException.
 * - Each self-service operation's API reference (UpdateUserAttributes, ChangePassword, SetUserMFAPreference,
 *   AssociateSoftwareToken, StartWebAuthnRegistration, DeleteUser, …): "It must include the scope
 *   aws.cognito.signin.user.admin"; without it Cognito answers NotAuthorizedException "Access Token does not have
 *   required scopes".
 */
import {
  AdminInitiateAuthCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  InitiateAuthCommand,
  SignUpCommand,
  AdminConfirmSignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SELF_SERVICE_SCOPE } from "~/integrations/cognito/pre-token-generation";
import { REQUIRED_SERVER_CLIENT_SETTINGS, requiredPasswordPolicy } from "~/integrations/cognito/pool-contract.server";
import { MISSING_SCOPE, SELF_SERVICE_OPERATIONS, outcomeOf } from "../support/self-service-operations";
import { PRE_TOKEN_GENERATION_FUNCTION, standInFunctionArn } from "../support/stand-ins/stand-in/function-names";
import { type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("token-scopes");
});

afterAll(async () => {
  await cognito?.stop();
});

const scopesOf = (accessToken: string | undefined) => String(decodeJwt(accessToken ?? "").scope ?? "").split(" ");

const passwordAuth = (clientId: string, email: string, userPoolId = cognito.userPoolId) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: userPoolId,
      ClientId: clientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD },
    }),
  );

describe("the provisioned pool's trigger", () => {
  test("tokens of the members' and the staff client lose the self-service scope, in every flow", async () => {
    const email = cognito.email("member-flows");
    await cognito.confirmedMember(email);
    const viaAdmin = (await passwordAuth(cognito.clientId, email)).AuthenticationResult!;
    const viaPublic = (
      await cognito.cognito.send(
        new InitiateAuthCommand({
          ClientId: cognito.clientId,
          AuthFlow: "USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: email, PASSWORD },
        }),
      )
    ).AuthenticationResult!;
    const refreshed = (
      await cognito.cognito.send(
        new AdminInitiateAuthCommand({
          UserPoolId: cognito.userPoolId,
          ClientId: cognito.clientId,
          AuthFlow: "REFRESH_TOKEN_AUTH",
          AuthParameters: { REFRESH_TOKEN: viaPublic.RefreshToken! },
        }),
      )
    ).AuthenticationResult!;
    const staff = (await passwordAuth(cognito.pool.staffClientId, email)).AuthenticationResult!;
    for (const token of [viaAdmin, viaPublic, refreshed, staff]) {
      expect(scopesOf(token.AccessToken)).not.toContain(SELF_SERVICE_SCOPE);
      // The token still verifies and names its member: the member API and sibling services read it as before.
      expect(decodeJwt(token.AccessToken!)).toMatchObject({ token_use: "access", username: expect.any(String) });
    }
  });

  test("tokens of the server-only client keep it", async () => {
    const email = cognito.email("server-flow");
    await cognito.confirmedMember(email);
    expect(scopesOf((await cognito.serverSignIn(email)).AccessToken)).toEqual([SELF_SERVICE_SCOPE]);
  });

  test("every self-service operation refuses a token without the scope, before anything changes", async () => {
    const email = cognito.email("refused");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.signIn(email);
    for (const operation of SELF_SERVICE_OPERATIONS) {
      expect(await outcomeOf(operation.call(cognito.cognito, AccessToken!)), operation.name).toEqual(MISSING_SCOPE);
    }
    // The member is still there, password and all.
    await expect(cognito.signIn(email)).resolves.toHaveProperty("AccessToken");
  });

  test("the server-only client's token passes the scope check", async () => {
    const email = cognito.email("accepted");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    const reads = SELF_SERVICE_OPERATIONS.filter((operation) => !operation.changes);
    for (const operation of reads) {
      expect(await outcomeOf(operation.call(cognito.cognito, AccessToken!)), operation.name).toBe("accepted");
    }
    const changePassword = SELF_SERVICE_OPERATIONS.find((operation) => operation.name === "ChangePassword")!;
    // Refused for its wrong previous password, not for the token.
    expect(await outcomeOf(changePassword.call(cognito.cognito, AccessToken!))).toEqual({
      name: "NotAuthorizedException",
      message: "Incorrect username or password.",
    });
  });
});

describe("pools without the V2_0 trigger", () => {
  /** A pool of its own with one client and one member, given the trigger settings to test. */
  async function poolWith(lambdaConfig: Record<string, unknown> | undefined) {
    const pool = await cognito.cognito.send(
      new CreateUserPoolCommand({
        PoolName: `scopes-${crypto.randomUUID().slice(0, 8)}`,
        UsernameAttributes: ["email"],
        UserPoolTier: "ESSENTIALS",
        Policies: { PasswordPolicy: requiredPasswordPolicy(8) },
        ...(lambdaConfig ? { LambdaConfig: lambdaConfig } : {}),
      }),
    );
    const userPoolId = pool.UserPool!.Id!;
    const client = await cognito.cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: "web",
        ...REQUIRED_SERVER_CLIENT_SETTINGS,
      }),
    );
    const clientId = client.UserPoolClient!.ClientId!;
    const email = cognito.email("other-pool");
    await cognito.cognito.send(new SignUpCommand({ ClientId: clientId, Username: email, Password: PASSWORD }));
    await cognito.cognito.send(new AdminConfirmSignUpCommand({ UserPoolId: userPoolId, Username: email }));
    return { signIn: () => passwordAuth(clientId, email, userPoolId) };
  }

  test("with no trigger, or a V1_0 one, every client's tokens carry the self-service scope", async () => {
    const none = await poolWith(undefined);
    expect(scopesOf((await none.signIn()).AuthenticationResult?.AccessToken)).toEqual([SELF_SERVICE_SCOPE]);
    const arn = standInFunctionArn(PRE_TOKEN_GENERATION_FUNCTION);
    const v1 = await poolWith({ PreTokenGenerationConfig: { LambdaVersion: "V1_0", LambdaArn: arn } });
    expect(scopesOf((await v1.signIn()).AuthenticationResult?.AccessToken)).toEqual([SELF_SERVICE_SCOPE]);
  });

  test("a trigger Cognito cannot invoke fails the sign-in with UnexpectedLambdaException", async () => {
    const arn = standInFunctionArn("no-such-function");
    const broken = await poolWith({ PreTokenGenerationConfig: { LambdaVersion: "V2_0", LambdaArn: arn } });
    expect((await rejection(broken.signIn())).name).toBe("UnexpectedLambdaException");
  });
});
