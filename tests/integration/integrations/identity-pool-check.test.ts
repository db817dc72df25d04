import path from "node:path";
import {
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, expect, test } from "vitest";
import { MIN_PASSWORD_LENGTH } from "~/domain/forms/field-schemas";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import {
  REQUIRED_SERVER_CLIENT_SETTINGS,
  REQUIRED_STAFF_CLIENT_SETTINGS,
  identityPoolProblems,
} from "~/integrations/cognito/pool-contract.server";
import { mailboxDirectory } from "../../support/stand-ins/dev-mailbox";
import { findFreePort, startCognitoStandIn } from "../../support/stand-ins/cognito-stand-in";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "../../support/stand-ins/provision-cognito";
import {
  ADMIN_GROUP,
  APP_ORIGIN,
  type ContractStandIn,
  REGION,
  startContractStandIn,
} from "../../contract/contract-fixture";
import { spawnNodeScript } from "../../support/node-child";
import { makeTempDir } from "../../support/temp-dir";

/**
 * The start-up check of the Cognito pool against the deployment contract, through the Cognito
 * adapter against the stand-in: a pool provisioned as the contract says passes, one made otherwise gives the
 * expected problems, and the server refuses to start on it with the list.
 */

let standIn: ContractStandIn;

beforeAll(async () => {
  standIn = await startContractStandIn("pool-check");
});

afterAll(async () => {
  await standIn?.stop();
});

const EXPECTED = { minimumPasswordLength: MIN_PASSWORD_LENGTH, adminGroup: ADMIN_GROUP, appOrigin: APP_ORIGIN };

/** The check as start-server.ts runs it, for a pool and client on the stand-in. */
async function problemsOf(
  userPoolId: string,
  clientId: string,
  adminGroup = ADMIN_GROUP,
  staffClientId = standIn.pool.staffClientId,
  serverClientId = standIn.pool.serverClientId,
): Promise<string[]> {
  const identity = createIdentityProvider(
    { region: REGION, endpoint: standIn.endpoint, userPoolId, clientId, staffClientId, serverClientId },
    standIn.cognito,
  );
  return identityPoolProblems(identity, { ...EXPECTED, adminGroup });
}

test("the pool and client provisioned for dev and preview meet the contract", async () => {
  expect(await problemsOf(standIn.userPoolId, standIn.clientId)).toEqual([]);
});

test("a client with revocation off, hidden existence errors, rotation on and no admin flow is reported", async () => {
  const created = await standIn.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId: standIn.userPoolId,
      ClientName: "misconfigured",
      ExplicitAuthFlows: ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
      EnableTokenRevocation: false,
      PreventUserExistenceErrors: "ENABLED",
      RefreshTokenRotation: { Feature: "ENABLED", RetryGracePeriodSeconds: 0 },
    }),
  );
  const clientId = created.UserPoolClient!.ClientId!;
  expect(await problemsOf(standIn.userPoolId, clientId)).toEqual([
    expect.stringContaining(
      `app client ${clientId}: ExplicitAuthFlows is ["ALLOW_USER_SRP_AUTH","ALLOW_REFRESH_TOKEN_AUTH"], must include "ALLOW_ADMIN_USER_PASSWORD_AUTH"`,
    ),
    expect.stringContaining('must include "ALLOW_USER_AUTH"'),
    expect.stringContaining("EnableTokenRevocation is false, must be true"),
    expect.stringContaining('PreventUserExistenceErrors is "ENABLED", must be "LEGACY"'),
    expect.stringContaining('RefreshTokenRotation.Feature is "ENABLED", must be "DISABLED"'),
  ]);
});

test("a staff client with Cognito's default token lifetimes and existence errors is reported", async () => {
  const created = await standIn.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId: standIn.userPoolId,
      ClientName: "staff-with-defaults",
      ExplicitAuthFlows: [...REQUIRED_STAFF_CLIENT_SETTINGS.ExplicitAuthFlows],
    }),
  );
  const staffClientId = created.UserPoolClient!.ClientId!;
  expect(await problemsOf(standIn.userPoolId, standIn.clientId, ADMIN_GROUP, staffClientId)).toEqual([
    expect.stringContaining(
      `staff app client ${staffClientId}: PreventUserExistenceErrors is "LEGACY", must be "ENABLED"`,
    ),
    expect.stringContaining("AccessTokenValidity is Cognito's default, must be at most 5 minutes"),
    expect.stringContaining("IdTokenValidity is Cognito's default, must be at most 5 minutes"),
    expect.stringContaining("RefreshTokenValidity is Cognito's default, must be at most 8 hours"),
  ]);
  // The members' client named as the staff client is refused too.
  expect(await problemsOf(standIn.userPoolId, standIn.clientId, ADMIN_GROUP, standIn.clientId)).toContainEqual(
    expect.stringContaining("is the members' app client, must be a client of its own"),
  );
});

test("a pool without e-mail usernames, with another password policy, MFA off, no passkeys and no admin group is reported", async () => {
  const pool = await standIn.cognito.send(
    new CreateUserPoolCommand({
      PoolName: "misconfigured",
      UserPoolTier: "LITE",
      Policies: {
        PasswordPolicy: {
          MinimumLength: 6,
          RequireLowercase: false,
          RequireUppercase: false,
          RequireNumbers: true,
          RequireSymbols: false,
        },
      },
    }),
  );
  const userPoolId = pool.UserPool!.Id!;
  const client = await standIn.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId: userPoolId,
      ClientName: "web",
      ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH", "ALLOW_USER_AUTH"],
    }),
  );
  const staffClient = await standIn.cognito.send(
    new CreateUserPoolClientCommand({ UserPoolId: userPoolId, ClientName: "staff", ...REQUIRED_STAFF_CLIENT_SETTINGS }),
  );
  const staffClientId = staffClient.UserPoolClient!.ClientId!;
  const serverClient = await standIn.cognito.send(
    new CreateUserPoolClientCommand({
      UserPoolId: userPoolId,
      ClientName: "server",
      ...REQUIRED_SERVER_CLIENT_SETTINGS,
    }),
  );
  const serverClientId = serverClient.UserPoolClient!.ClientId!;
  expect(
    await problemsOf(userPoolId, client.UserPoolClient!.ClientId!, "staff", staffClientId, serverClientId),
  ).toEqual([
    expect.stringContaining(`user pool ${userPoolId}: UsernameAttributes is unset, must include "email"`),
    expect.stringContaining('AutoVerifiedAttributes is unset, must include "email"'),
    expect.stringContaining("PasswordPolicy.MinimumLength is 6, must be 8"),
    expect.stringContaining("PasswordPolicy.RequireNumbers is true, must be false"),
    expect.stringContaining('MfaConfiguration is "OFF", must be "OPTIONAL"'),
    expect.stringContaining("SoftwareTokenMfaConfiguration.Enabled is not true"),
    expect.stringContaining("LambdaConfig.PreTokenGenerationConfig is unset, must name the app's trigger"),
    expect.stringContaining("LambdaConfig.CustomMessage is unset, must name the app's custom message trigger"),
    expect.stringContaining('UserPoolTier is "LITE", must be "ESSENTIALS" or "PLUS"'),
    expect.stringContaining('Policies.SignInPolicy.AllowedFirstAuthFactors is unset, must include "PASSWORD"'),
    expect.stringContaining('Policies.SignInPolicy.AllowedFirstAuthFactors is unset, must include "WEB_AUTHN"'),
    expect.stringContaining('WebAuthnConfiguration.RelyingPartyId is unset, must be "localhost"'),
    expect.stringContaining('WebAuthnConfiguration.UserVerification is "preferred", must be "required"'),
    expect.stringContaining('group "staff" (ADMIN_GROUP) does not exist'),
  ]);
});

test("the server refuses to start on a pool that breaks the contract, listing every problem", async () => {
  // A data directory whose stand-in already holds the app's pool and client, made with the wrong settings: the
  // embedded provisioning keeps what exists, so only the start-up check stands between it and a running server.
  const temp = makeTempDir("pool-check-start");
  try {
    const wrong = await startCognitoStandIn({
      dataDir: path.join(temp.dir, "cognito"),
      mailboxDir: mailboxDirectory(temp.dir),
    });
    const cognito = createCognitoClient({ region: REGION, endpoint: wrong.endpoint, userPoolId: "", clientId: "" });
    try {
      const pool = await cognito.send(
        new CreateUserPoolCommand({
          PoolName: STAND_IN_POOL_NAME,
          UsernameAttributes: ["email"],
          AutoVerifiedAttributes: ["email"],
          Policies: {
            PasswordPolicy: {
              MinimumLength: 6,
              RequireLowercase: false,
              RequireUppercase: false,
              RequireNumbers: false,
              RequireSymbols: false,
            },
          },
        }),
      );
      const UserPoolId = pool.UserPool!.Id!;
      await cognito.send(new CreateGroupCommand({ UserPoolId, GroupName: ADMIN_GROUP }));
      await cognito.send(
        new CreateUserPoolClientCommand({
          UserPoolId,
          ClientName: STAND_IN_CLIENT_NAME,
          ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
          EnableTokenRevocation: false,
          PreventUserExistenceErrors: "ENABLED",
        }),
      );
    } finally {
      cognito.destroy();
      await wrong.stop();
    }

    const { code, output } = await runServer(["--mode=preview"], {
      DATA_DIR: temp.dir,
      PORT: String(await findFreePort()),
    });
    expect(output).not.toContain("ready at");
    expect(code).toBe(1);
    expect(output).toContain("do not meet the deployment contract");
    expect(output).toContain("PasswordPolicy.MinimumLength is 6, must be 8");
    expect(output).toContain("EnableTokenRevocation is false, must be true");
    expect(output).toContain('PreventUserExistenceErrors is "ENABLED", must be "LEGACY"');
    expect(output).toContain("Cognito deployment contract");
  } finally {
    temp.remove();
  }
}, 180_000);

/** Runs the server and collects how it ends; one that starts after all is stopped, so the test fails, not hangs. */
function runServer(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawnNodeScript("app/server/dev-entry.ts", args, {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready at")) child.kill("SIGTERM");
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    child.on("exit", (code) => resolve({ code, output }));
  });
}
