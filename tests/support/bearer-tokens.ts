import {
  type AuthenticationResultType,
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import {
  STAND_IN_CLIENT_NAME,
  STAND_IN_POOL_NAME,
  STAND_IN_SERVER_CLIENT_NAME,
  STAND_IN_STAFF_CLIENT_NAME,
} from "./stand-ins/provision-cognito";

/** The AWS SDK pointed at a server's Cognito stand-in, as a sibling service holds it. destroy() when done. */
export interface StandInSdk {
  cognito: CognitoIdentityProviderClient;
  userPoolId: string;
  clientId: string;
  /** The staff app client's (COGNITO_STAFF_CLIENT_ID): the only tokens the admin API takes. */
  staffClientId: string;
  /** The server-only app client's (COGNITO_SERVER_CLIENT_ID): what the app's server alone signs in through. */
  serverClientId: string;
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
  const serverClientId = clientIdNamed(STAND_IN_SERVER_CLIENT_NAME);
  if (!userPoolId || !clientId || !staffClientId || !serverClientId) {
    throw new Error("The stand-in has no member-account pool, or lacks its members', staff or server-only app client");
  }
  return { cognito, userPoolId, clientId, staffClientId, serverClientId, destroy: () => cognito.destroy() };
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

/** The sub and the tokens of a completed sign-in. */
export function bearerTokensOf(result: AuthenticationResultType | undefined): BearerTokens {
  const accessToken = result?.AccessToken ?? "";
  const refreshToken = result?.RefreshToken ?? "";
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as { sub: string };
  return { sub: claims.sub, accessToken, refreshToken };
}
