/**
 * The stand-in harness's test switches: faults shaped like Cognito's (throttling, internal errors, slowness) as the
 * AWS SDK sees them, and the request counter later tests use to prove that a page view costs no Cognito call.
 */
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminResetUserPasswordCommand,
  CognitoIdentityProviderClient,
  DescribeUserPoolCommand,
  ListUsersCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { getFault, getRequestCounts, JWKS_OPERATION, resetHarness, setFault } from "../support/stand-in-faults";
import { type ContractStandIn, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("faults");
});

beforeEach(async () => {
  await resetHarness(cognito.endpoint);
});

afterAll(async () => {
  await cognito?.stop();
});

const listUsers = (client = cognito.cognito) =>
  client.send(new ListUsersCommand({ UserPoolId: cognito.userPoolId, Limit: 1 }));
const adminSignIn = (client = cognito.cognito) =>
  client.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: cognito.pool.admin.email, PASSWORD: cognito.pool.admin.password },
    }),
  );

describe("request counter", () => {
  test("counts every request per operation since the last reset, control requests excepted", async () => {
    expect(await getRequestCounts(cognito.endpoint)).toEqual({ total: 0, byOperation: {} });
    await listUsers();
    await listUsers();
    await cognito.cognito.send(new DescribeUserPoolCommand({ UserPoolId: cognito.userPoolId }));
    await fetch(`${cognito.endpoint}/${cognito.userPoolId}/.well-known/jwks.json`);
    expect(await getRequestCounts(cognito.endpoint)).toEqual({
      total: 4,
      byOperation: { ListUsers: 2, DescribeUserPool: 1, [JWKS_OPERATION]: 1 },
    });
    await resetHarness(cognito.endpoint);
    expect((await cognito.standIn.faults.requestCounts()).total).toBe(0);
  });
});

describe("faults", () => {
  // API reference, common errors: TooManyRequestsException (HTTP 400) when requests exceed the quota for the
  // operation. The SDK classifies it as throttling.
  test("throttle answers TooManyRequestsException, only for the named operations", async () => {
    await setFault(cognito.endpoint, { mode: "throttle", operations: ["AdminInitiateAuth"] });
    const error = await rejection(adminSignIn(cognito.client({ maxAttempts: 1 })));
    expect(error.name).toBe("TooManyRequestsException");
    expect(error.$metadata?.httpStatusCode).toBe(400);
    await expect(listUsers()).resolves.toHaveProperty("Users");
  });

  // LimitExceededException (HTTP 400): e.g. ForgotPassword / ConfirmSignUp attempt limits.
  test("throttle can answer LimitExceededException instead", async () => {
    await cognito.standIn.faults.set({ mode: "throttle", error: "LimitExceededException" });
    const error = await rejection(listUsers(cognito.client({ maxAttempts: 1 })));
    expect(error.name).toBe("LimitExceededException");
    expect(error.message).toBe("Attempt limit exceeded, please try after some time.");
  });

  // The SDK retries throttling errors within maxAttempts: a single throttled answer is absorbed by the app's
  // client (2 attempts), and both attempts reach the stand-in.
  test("times limits the fault: the app's client retries a single throttled answer", async () => {
    await setFault(cognito.endpoint, { mode: "throttle", operations: ["AdminInitiateAuth"], times: 1 });
    await expect(adminSignIn()).resolves.toHaveProperty("AuthenticationResult");
    expect((await getRequestCounts(cognito.endpoint)).byOperation.AdminInitiateAuth).toBe(2);
  });

  // InternalErrorException is HTTP 500; the SDK retries it (3 attempts by default) before giving up.
  test("fail answers HTTP 500 InternalErrorException after the SDK's retries", async () => {
    await setFault(cognito.endpoint, { mode: "fail", operations: ["ListUsers"] });
    const error = await rejection(listUsers(cognito.client()));
    expect(error.name).toBe("InternalErrorException");
    expect(error.$metadata?.httpStatusCode).toBe(500);
    expect(error.$metadata?.attempts).toBe(3);
    expect((await getRequestCounts(cognito.endpoint)).byOperation.ListUsers).toBe(3);
  });

  test("slow delays the answer", async () => {
    await setFault(cognito.endpoint, { mode: "slow", delayMs: 300, operations: ["ListUsers"] });
    const started = Date.now();
    await listUsers();
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  test("slow: a client whose request timeout is shorter than the delay times out; the request is dropped", async () => {
    const email = cognito.email("slow");
    await setFault(cognito.endpoint, { mode: "slow", delayMs: 1_000, operations: ["AdminCreateUser"] });
    const impatient = cognito.client({ maxAttempts: 1, requestTimeout: 200, throwOnRequestTimeout: true });
    const error = await rejection(
      impatient.send(
        new AdminCreateUserCommand({ UserPoolId: cognito.userPoolId, Username: email, MessageAction: "SUPPRESS" }),
      ),
    );
    expect(error.name).toBe("TimeoutError");
    // The stand-in does not carry out a request whose client gave up while it was being delayed.
    await expect.poll(async () => (await getFault(cognito.endpoint)).dropped).toBe(1);
    await resetHarness(cognito.endpoint);
    const lookup = await rejection(
      cognito.cognito.send(new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email })),
    );
    expect(lookup.name).toBe("UserNotFoundException");
  });

  test("slowAnswer: the request is carried out, and a client that stops waiting for the answer times out", async () => {
    const email = cognito.email("slow-answer");
    await setFault(cognito.endpoint, { mode: "slowAnswer", delayMs: 1_000, operations: ["AdminCreateUser"] });
    const impatient = cognito.client({ maxAttempts: 1, requestTimeout: 200, throwOnRequestTimeout: true });
    const error = await rejection(
      impatient.send(
        new AdminCreateUserCommand({ UserPoolId: cognito.userPoolId, Username: email, MessageAction: "SUPPRESS" }),
      ),
    );
    expect(error.name).toBe("TimeoutError");
    await resetHarness(cognito.endpoint);
    const user = await cognito.cognito.send(
      new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }),
    );
    expect(user.Username).toBeTruthy();
  });

  // A trap of this SDK release (@smithy/node-http-handler 4.x): requestTimeout alone only logs a warning and the
  // call keeps waiting; only throwOnRequestTimeout: true turns it into a TimeoutError.
  test("slow: requestTimeout without throwOnRequestTimeout does not end the call", async () => {
    await setFault(cognito.endpoint, { mode: "slow", delayMs: 400, operations: ["ListUsers"] });
    const warnings: string[] = [];
    const client = new CognitoIdentityProviderClient({
      region: "ap-northeast-1",
      endpoint: cognito.endpoint,
      credentials: { accessKeyId: "stand-in", secretAccessKey: "stand-in" },
      maxAttempts: 1,
      requestHandler: { requestTimeout: 100, logger: { warn: (message: string) => warnings.push(message) } as never },
    });
    await expect(listUsers(client)).resolves.toHaveProperty("Users");
    expect(warnings.join("\n")).toMatch(/exceeded the configured 100 ms requestTimeout/);
    client.destroy();
  });

  test("error answers any Cognito error", async () => {
    await setFault(cognito.endpoint, {
      mode: "error",
      error: "CodeDeliveryFailureException",
      message: "Unable to deliver the code.",
      times: 1,
    });
    const error = await rejection(listUsers());
    expect(error.name).toBe("CodeDeliveryFailureException");
    expect(error.message).toBe("Unable to deliver the code.");
    await expect(listUsers()).resolves.toHaveProperty("Users");
  });

  test("the control endpoint refuses settings it does not understand", async () => {
    await expect(setFault(cognito.endpoint, { mode: "explode" as never })).rejects.toThrow(/mode must be one of/);
    await expect(setFault(cognito.endpoint, { mode: "throttle", error: "NotAuthorizedException" })).rejects.toThrow();
  });
});

describe("operations cognito-local lacks", () => {
  // A stand-in gap must not look like a transient fault (HTTP 500), which the SDK would retry.
  test("answer HTTP 400 StandInUnsupportedException at once, without SDK retries", async () => {
    const error = await rejection(
      cognito
        .client()
        .send(new AdminResetUserPasswordCommand({ UserPoolId: cognito.userPoolId, Username: "x@example.jp" })),
    );
    expect(error.name).toBe("StandInUnsupportedException");
    expect(error.$metadata?.httpStatusCode).toBe(400);
    expect((await getRequestCounts(cognito.endpoint)).byOperation.AdminResetUserPassword).toBe(1);
  });
});

// Last in this file: the stand-in restarts. It saves its pools behind their writes (stand-in/write-behind-store.ts).
describe("data across a restart", () => {
  test("a user created just before a clean stop is there after the stand-in starts again", async () => {
    const email = cognito.email("restart");
    await cognito.cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        MessageAction: "SUPPRESS",
        UserAttributes: [{ Name: "email", Value: email }],
      }),
    );
    await cognito.restart();
    const user = await cognito.cognito.send(
      new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }),
    );
    expect(user.UserAttributes).toContainEqual({ Name: "email", Value: email });
  });
});
