/**
 * One fresh Cognito stand-in (cognito-local behind the stand-in harness, in its own process, in a temp directory),
 * provisioned like the app's pool, for one contract test file. The contract tests talk to it only through the AWS
 * SDK, as the app does, and pin what the AWS API reference says Cognito does.
 */
import path from "node:path";
import {
  AdminInitiateAuthCommand,
  CognitoIdentityProviderClient,
  ConfirmSignUpCommand,
  SignUpCommand,
  type AuthenticationResultType,
} from "@aws-sdk/client-cognito-identity-provider";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { type MailboxEntry, listMailboxEntries, mailboxDirectory } from "../support/stand-ins/dev-mailbox";
import { type RunningStandIn, startCognitoStandIn } from "../support/stand-ins/cognito-stand-in";
import { type ProvisionedPool, provisionStandInPool } from "../support/stand-ins/provision-cognito";
import { makeTempDir } from "../support/temp-dir";

export const REGION = "ap-northeast-1";
export const ADMIN_GROUP = "admin";
export const PASSWORD = "correct-horse-1";
/** The app origin the contract pool is provisioned for: its host is the pool's passkey relying party. */
export const APP_ORIGIN = "http://localhost:3000";

export interface ContractStandIn {
  endpoint: string;
  standIn: RunningStandIn;
  pool: ProvisionedPool;
  userPoolId: string;
  clientId: string;
  /** The app's own client configuration (createCognitoClient): the code path under test. */
  cognito: CognitoIdentityProviderClient;
  /** A client with its own SDK settings (retries, timeouts), for the fault switches. */
  client(options?: ClientOptions): CognitoIdentityProviderClient;
  /** Every code the stand-in delivered to `email`, newest first. */
  codesFor(email: string): Promise<string[]>;
  latestCode(email: string): Promise<string>;
  /** Every message the stand-in delivered to `email` (codes and invitations), newest first. */
  messagesFor(email: string): Promise<MailboxEntry[]>;
  /** A unique address for one test. */
  email(label: string): string;
  /** Signs up and confirms `email` through SignUp + ConfirmSignUp with the mailed code. */
  confirmedMember(email: string, password?: string): Promise<void>;
  signIn(email: string, password?: string): Promise<AuthenticationResultType>;
  /**
   * The same password sign-in through the server-only app client (COGNITO_SERVER_CLIENT_ID): the one client whose
   * tokens keep the self-service scope, for the contract tests of the self-service operations.
   */
  serverSignIn(email: string, password?: string): Promise<AuthenticationResultType>;
  /** Stops the stand-in cleanly and starts it again on the same data and port, as a developer's restart does. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface ClientOptions {
  maxAttempts?: number;
  requestTimeout?: number;
  /** The SDK only warns when requestTimeout passes unless this is true (@smithy/node-http-handler 4.x). */
  throwOnRequestTimeout?: boolean;
}

let counter = 0;

export async function startContractStandIn(label: string): Promise<ContractStandIn> {
  const temp = makeTempDir(`contract-${label}`);
  const mailboxDir = mailboxDirectory(temp.dir);
  const dataDir = path.join(temp.dir, "cognito");
  const standIn = await startCognitoStandIn({ dataDir, mailboxDir });
  const endpoint = standIn.endpoint;
  const provisioning = createCognitoClient({ region: REGION, endpoint, userPoolId: "", clientId: "" });
  const pool = await provisionStandInPool(provisioning, {
    standInEndpoint: endpoint,
    dataDir: temp.dir,
    adminGroup: ADMIN_GROUP,
    appOrigin: APP_ORIGIN,
  });
  provisioning.destroy();
  const userPoolId = pool.userPoolId;
  const clientId = pool.clientId;
  const cognito = createCognitoClient({ region: REGION, endpoint, userPoolId, clientId });
  const extraClients: CognitoIdentityProviderClient[] = [];

  const messagesFor = async (email: string) =>
    (await listMailboxEntries(mailboxDir)).filter((entry) => entry.kind === "code" && entry.to.includes(email));
  const codesFor = async (email: string) =>
    (await messagesFor(email)).filter((entry) => entry.code).map((entry) => entry.code as string);

  async function passwordSignIn(ClientId: string, email: string, password: string) {
    const result = await cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: userPoolId,
        ClientId,
        AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );
    if (!result.AuthenticationResult) throw new Error(`No tokens for ${email}: ${result.ChallengeName}`);
    return result.AuthenticationResult;
  }

  const fixture: ContractStandIn = {
    endpoint,
    standIn,
    pool,
    userPoolId,
    clientId,
    cognito,
    client(options = {}) {
      const client = new CognitoIdentityProviderClient({
        region: REGION,
        endpoint,
        credentials: { accessKeyId: "stand-in", secretAccessKey: "stand-in" },
        ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
        ...(options.requestTimeout
          ? {
              requestHandler: {
                requestTimeout: options.requestTimeout,
                throwOnRequestTimeout: options.throwOnRequestTimeout ?? false,
              },
            }
          : {}),
      });
      extraClients.push(client);
      return client;
    },
    codesFor,
    messagesFor,
    async latestCode(email) {
      const [code] = await codesFor(email);
      if (!code) throw new Error(`No code was delivered to ${email}`);
      return code;
    },
    email(name) {
      counter += 1;
      return `${name}-${counter}-${Date.now()}@example.jp`;
    },
    async confirmedMember(email, password = PASSWORD) {
      await cognito.send(new SignUpCommand({ ClientId: clientId, Username: email, Password: password }));
      const code = await fixture.latestCode(email);
      await cognito.send(new ConfirmSignUpCommand({ ClientId: clientId, Username: email, ConfirmationCode: code }));
    },
    signIn: (email, password = PASSWORD) => passwordSignIn(clientId, email, password),
    serverSignIn: (email, password = PASSWORD) => passwordSignIn(pool.serverClientId, email, password),
    async restart() {
      await fixture.standIn.stop();
      fixture.standIn = await startCognitoStandIn({ dataDir, mailboxDir, port: Number(new URL(endpoint).port) });
    },
    async stop() {
      cognito.destroy();
      for (const client of extraClients) client.destroy();
      await fixture.standIn.stop();
      temp.remove();
    },
  };
  return fixture;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number; attempts?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("Expected the call to fail, but it succeeded");
}
