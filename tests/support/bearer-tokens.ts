import {
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "./stand-ins/provision-cognito";

/** The AWS SDK pointed at a server's Cognito stand-in, as a sibling service holds it. destroy() when done. */
export interface StandInSdk {
  cognito: CognitoIdentityProviderClient;
  userPoolId: string;
  clientId: string;
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
  const clientId =
    clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId ?? "";
  if (!userPoolId || !clientId) throw new Error("The stand-in has no member-account pool or app client");
  return { cognito, userPoolId, clientId, destroy: () => cognito.destroy() };
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
  const accessToken = output.AuthenticationResult?.AccessToken ?? "";
  const refreshToken = output.AuthenticationResult?.RefreshToken ?? "";
  const claims = JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()) as { sub: string };
  return { sub: claims.sub, accessToken, refreshToken };
}
