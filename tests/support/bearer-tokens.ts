import {
  AdminInitiateAuthCommand,
  type AuthenticationResultType,
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME, STAND_IN_STAFF_CLIENT_NAME } from "./stand-ins/provision-cognito";

/** The AWS SDK pointed at a server's Cognito stand-in, as a sibling service holds it. destroy() when done. */
export interface StandInSdk {
  cognito: CognitoIdentityProviderClient;
  userPoolId: string;
  clientId: string;
  /** The staff app client's (COGNITO_STAFF_CLIENT_ID): the only tokens the admin API takes. */
  staffClientId: string;
  destroy(): void;
}

export async function connectToStandIn(standInPort: number): Promise<StandInSdk> {
  const cognito = createCognitoClient({
    region: "ap-northeast-1",
    endpoint: `http://127.0.0.1:${standInPort}`,
    userPoolId: "",
    clientId: "",
  });
  const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
  const userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id ?? "";
  const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
  const clientIdNamed = (name: string) =>
    clients.UserPoolClients?.find((client) => client.ClientName === name)?.ClientId ?? "";
  const clientId = clientIdNamed(STAND_IN_CLIENT_NAME);
  const staffClientId = clientIdNamed(STAND_IN_STAFF_CLIENT_NAME);
  if (!userPoolId || !clientId || !staffClientId) {
    throw new Error("The stand-in has no member-account pool, or lacks its members' or staff app client");
  }
  return { cognito, userPoolId, clientId, staffClientId, destroy: () => cognito.destroy() };
}

export interface BearerTokens {
  sub: string;
  accessToken: string;
  refreshToken: string;
}

/** A sign-in as a sibling service does it (the public client's USER_PASSWORD_AUTH): tokens for the member API. */
export async function bearerTokensFor(sdk: StandInSdk, email: string, password: string): Promise<BearerTokens> {
  const output = await sdk.cognito.send(
    new InitiateAuthCommand({
      ClientId: sdk.clientId,
      AuthFlow: "USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  return bearerTokensOf(output.AuthenticationResult);
}

/**
 * A staff tool's sign-in through the staff app client (ADMIN_USER_PASSWORD_AUTH, as the staff client allows it):
 * tokens for the admin API, 5 minutes long. The member must have no second factor (a challenge would come back).
 */
export async function staffTokensFor(sdk: StandInSdk, email: string, password: string): Promise<BearerTokens> {
  const output = await sdk.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: sdk.userPoolId,
      ClientId: sdk.staffClientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  if (!output.AuthenticationResult) throw new Error(`The staff sign-in of ${email} answered ${output.ChallengeName}`);
  return bearerTokensOf(output.AuthenticationResult);
}

function bearerTokensOf(result: AuthenticationResultType | undefined): BearerTokens {
  const accessToken = result?.AccessToken ?? "";
  const refreshToken = result?.RefreshToken ?? "";
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as { sub: string };
  return { sub: claims.sub, accessToken, refreshToken };
}

/**
 * A staff member's admin API token for a whole test file: the staff client's tokens last 5 minutes, longer than
 * some files run on a loaded machine, so a token with less than a minute left is replaced by a new sign-in.
 */
export function staffTokenSource(sdk: StandInSdk, email: string, password: string): () => Promise<string> {
  let current: { token: string; expiresAtMs: number } | undefined;
  return async () => {
    if (!current || current.expiresAtMs - Date.now() < 60_000) {
      const { accessToken } = await staffTokensFor(sdk, email, password);
      const { exp } = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as {
        exp: number;
      };
      current = { token: accessToken, expiresAtMs: exp * 1000 };
    }
    return current.token;
  };
}
