/**
 * Sign-up cannot be pre-claimed (the first password typed for an address never wins over its owner's): the
 * sign-up domain against the Cognito stand-in over HTTP through the AWS SDK, with the codes it mails.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { confirmSignUp, resendSignUpCode, startSignUp } from "~/domain/account/sign-up.server";
import { DomainError, withDomainErrors } from "~/domain/domain-error.server";
import { type IdentityProvider, createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { type ContractStandIn, REGION, startContractStandIn } from "../../contract/contract-fixture";
import { getRequestCounts, resetHarness, resetRequestCounts } from "../../support/stand-in-faults";

let cognito: ContractStandIn;
let identity: IdentityProvider;

beforeAll(async () => {
  cognito = await startContractStandIn("sign-up-claims");
  identity = withDomainErrors(
    createIdentityProvider({
      region: REGION,
      endpoint: cognito.endpoint,
      userPoolId: cognito.userPoolId,
      clientId: cognito.clientId,
    }),
  );
});

afterEach(async () => {
  await resetHarness(cognito.endpoint);
});

afterAll(async () => {
  await cognito?.stop();
});

const signUp = (email: string, password: string) => startSignUp(identity, { email, password, locale: "ja" });

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

test("two sign-ups of one address: after confirming with the latest code only the second password signs in", async () => {
  const email = cognito.email("pre-claim");
  await signUp(email, "first-password-1");
  const second = await signUp(email, "second-password-2");
  await confirmSignUp(identity, { email, sub: second.sub, code: await cognito.latestCode(email) });

  await expect(cognito.signIn(email, "second-password-2")).resolves.toHaveProperty("AccessToken");
  expect((await refusal(identity.signIn({ email, password: "first-password-1" }))).code).toBe("invalidCredentials");
  // Each sign-up mailed its own code.
  expect(await cognito.codesFor(email)).toHaveLength(2);
});

test("a later sign-up's code does not confirm the earlier flow, so its password cannot be slipped to the owner", async () => {
  const email = cognito.email("slipped");
  const owner = await signUp(email, "owners-password-1");
  const latecomer = await signUp(email, "latecomers-password");
  // The owner reads the newest code in the mailbox (the latecomer's) and enters it on their own code step.
  const code = await cognito.latestCode(email);
  expect((await refusal(confirmSignUp(identity, { email, sub: owner.sub, code }))).code).toBe("codeMismatch");
  const user = await identity.getUser(email);
  expect(user).toMatchObject({ sub: latecomer.sub, status: "UNCONFIRMED" });
});

test("a confirmed address: no code, its password unchanged, and the flow's code step fails like a typo", async () => {
  const email = cognito.email("confirmed");
  await cognito.confirmedMember(email, "members-password-1");
  const existing = await identity.getUser(email);
  const flow = await signUp(email, "someone-elses-password");
  expect(flow.sub).not.toBe(existing.sub);
  expect(await cognito.codesFor(email)).toHaveLength(1);
  expect(
    (await refusal(confirmSignUp(identity, { email, sub: flow.sub, code: await cognito.latestCode(email) }))).code,
  ).toBe("codeMismatch");
  await resendSignUpCode(identity, { email, sub: flow.sub }, "ja");
  expect(await cognito.codesFor(email)).toHaveLength(1);
  await expect(cognito.signIn(email, "members-password-1")).resolves.toHaveProperty("AccessToken");
});

test("entering the code twice (a double submit) passes both times", async () => {
  const email = cognito.email("double-submit");
  const flow = await signUp(email, "double-password-1");
  const code = await cognito.latestCode(email);
  await confirmSignUp(identity, { email, sub: flow.sub, code });
  await expect(confirmSignUp(identity, { email, sub: flow.sub, code })).resolves.toBeUndefined();
});

const callsDuring = async (work: () => Promise<unknown>) => {
  await resetRequestCounts(cognito.endpoint);
  await work().catch((error: unknown) => {
    if (!(error instanceof DomainError)) throw error;
  });
  const { byOperation } = await getRequestCounts(cognito.endpoint);
  return { total: Object.values(byOperation).reduce((sum, count) => sum + count, 0), byOperation };
};

test("step 1 makes as many Cognito calls for a new, a confirmed and an unconfirmed address", async () => {
  const confirmed = cognito.email("calls-confirmed");
  await cognito.confirmedMember(confirmed);
  const unconfirmed = cognito.email("calls-unconfirmed");
  await signUp(unconfirmed, "first-password-1");

  const fresh = await callsDuring(() => signUp(cognito.email("calls-new"), "another-password-1"));
  expect(fresh.byOperation).toMatchObject({ AdminGetUser: 2, SignUp: 1 });
  expect((await callsDuring(() => signUp(confirmed, "another-password-1"))).total).toBe(fresh.total);
  const replaced = await callsDuring(() => signUp(unconfirmed, "another-password-1"));
  expect(replaced.total).toBe(fresh.total);
  expect(replaced.byOperation).toMatchObject({ AdminDeleteUser: 1, SignUp: 1 });
});

test("the code step and the resend make as many Cognito calls for a confirmed address's flow as for a new one's", async () => {
  const fresh = cognito.email("code-calls-new");
  const freshFlow = { email: fresh, ...(await signUp(fresh, "another-password-1")) };
  const confirmed = cognito.email("code-calls-confirmed");
  await cognito.confirmedMember(confirmed);
  const confirmedFlow = { email: confirmed, ...(await signUp(confirmed, "another-password-1")) };
  const wrongCode = async (email: string) => ((await cognito.latestCode(email)) === "000000" ? "111111" : "000000");

  const codeCalls = async (flow: { email: string; sub: string }) =>
    (await callsDuring(async () => confirmSignUp(identity, { ...flow, code: await wrongCode(flow.email) }))).total;
  expect(await codeCalls(confirmedFlow)).toBe(await codeCalls(freshFlow));
  const resendCalls = async (flow: { email: string; sub: string }) =>
    (await callsDuring(() => resendSignUpCode(identity, flow, "ja"))).total;
  expect(await resendCalls(confirmedFlow)).toBe(await resendCalls(freshFlow));
});
