/**
 * Contract: registration (SignUp, ConfirmSignUp, ResendConfirmationCode) as the Amazon Cognito user pools API
 * reference describes it, through the AWS SDK against the stand-in.
 */
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminGetUserCommand,
  ConfirmSignUpCommand,
  ResendConfirmationCodeCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("sign-up");
});

afterAll(async () => {
  await cognito?.stop();
});

const signUp = (email: string, password = PASSWORD) =>
  cognito.cognito.send(new SignUpCommand({ ClientId: cognito.clientId, Username: email, Password: password }));
const confirm = (email: string, code: string) =>
  cognito.cognito.send(
    new ConfirmSignUpCommand({ ClientId: cognito.clientId, Username: email, ConfirmationCode: code }),
  );
const resend = (email: string) =>
  cognito.cognito.send(new ResendConfirmationCodeCommand({ ClientId: cognito.clientId, Username: email }));
const attributesOf = async (email: string) => {
  const user = await cognito.cognito.send(new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));
  return { status: user.UserStatus, ...Object.fromEntries((user.UserAttributes ?? []).map((a) => [a.Name, a.Value])) };
};

describe("SignUp", () => {
  // API_SignUp, response elements: UserConfirmed says whether the user was confirmed (false until the code is
  // entered when the pool auto-verifies e-mail), UserSub is the user's sub, CodeDeliveryDetails where the code went.
  test("registers an unconfirmed user and e-mails a 6-digit code", async () => {
    const email = cognito.email("sign-up");
    const result = await signUp(email);
    expect(result.UserConfirmed).toBe(false);
    expect(result.UserSub).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.CodeDeliveryDetails).toMatchObject({ AttributeName: "email", DeliveryMedium: "EMAIL" });
    // Cognito masks the destination in its answer.
    expect(result.CodeDeliveryDetails?.Destination).not.toBe(email);
    expect(await cognito.latestCode(email)).toMatch(/^\d{6}$/);
    expect(await attributesOf(email)).toMatchObject({ status: "UNCONFIRMED", email, sub: result.UserSub });
  });

  // API_SignUp, errors: UsernameExistsException — the user name is already taken in the user pool.
  test("an address that already has a confirmed account gives UsernameExistsException", async () => {
    const email = cognito.email("existing");
    await cognito.confirmedMember(email);
    const error = await rejection(signUp(email));
    expect(error.name).toBe("UsernameExistsException");
    expect(error.$metadata?.httpStatusCode).toBe(400);
  });

  // Same error for an existing account that is still unconfirmed: the app relies on this to resend its code instead.
  test("an address with an unconfirmed sign-up also gives UsernameExistsException", async () => {
    const email = cognito.email("unconfirmed");
    await signUp(email);
    expect((await rejection(signUp(email))).name).toBe("UsernameExistsException");
  });

  // API_SignUp, errors: InvalidPasswordException — the password does not meet the pool's password policy
  // (here MinimumLength 8, Policies.PasswordPolicy of the provisioned pool).
  test("a 7-character password gives InvalidPasswordException and creates no user", async () => {
    const email = cognito.email("short");
    const error = await rejection(signUp(email, "seven-7"));
    expect(error.name).toBe("InvalidPasswordException");
    expect(error.message).toMatch(/Password not long enough/);
    expect((await rejection(attributesOf(email))).name).toBe("UserNotFoundException");
  });

  test("an 8-character password conforms to the policy", async () => {
    await expect(signUp(cognito.email("eight"), "eight-8!")).resolves.toMatchObject({ UserConfirmed: false });
  });
});

describe("ConfirmSignUp", () => {
  // API_ConfirmSignUp, errors: CodeMismatchException — the provided code does not match the expected one.
  test("a wrong code gives CodeMismatchException and leaves the user unconfirmed", async () => {
    const email = cognito.email("wrong-code");
    await signUp(email);
    const code = await cognito.latestCode(email);
    const wrong = code === "000000" ? "111111" : "000000";
    expect((await rejection(confirm(email, wrong))).name).toBe("CodeMismatchException");
    expect((await attributesOf(email)).status).toBe("UNCONFIRMED");
  });

  // API_ConfirmSignUp: confirms the account with the code Cognito sent; confirming with the code sent to the
  // e-mail address verifies that address (email_verified "true"), so password recovery by e-mail works.
  test("the mailed code confirms the user and verifies the e-mail address", async () => {
    const email = cognito.email("confirm");
    await signUp(email);
    await expect(confirm(email, await cognito.latestCode(email))).resolves.toBeDefined();
    expect(await attributesOf(email)).toMatchObject({ status: "CONFIRMED", email_verified: "true" });
  });

  // A confirmed user cannot be confirmed again: NotAuthorizedException (status is not UNCONFIRMED).
  test("confirming an already confirmed user gives NotAuthorizedException", async () => {
    const email = cognito.email("twice");
    await signUp(email);
    const code = await cognito.latestCode(email);
    await confirm(email, code);
    expect((await rejection(confirm(email, code))).name).toBe("NotAuthorizedException");
  });

  // API_ConfirmSignUp, errors: UserNotFoundException (PreventUserExistenceErrors is LEGACY for an API-created
  // app client, developer guide "Managing user existence error responses").
  test("an unknown user gives UserNotFoundException", async () => {
    expect((await rejection(confirm(cognito.email("nobody"), "123456"))).name).toBe("UserNotFoundException");
  });
});

describe("ResendConfirmationCode", () => {
  // API_ResendConfirmationCode: resends the code that confirms a new account to the attribute in
  // AutoVerifiedAttributes, answering CodeDeliveryDetails; the user confirms with the new code in ConfirmSignUp.
  // A resend issues a replacement code: the previous one no longer confirms.
  test("delivers a new code that confirms; the previous code stops working", async () => {
    const email = cognito.email("resend");
    await signUp(email);
    const first = await cognito.latestCode(email);
    const result = await resend(email);
    expect(result.CodeDeliveryDetails).toMatchObject({ AttributeName: "email", DeliveryMedium: "EMAIL" });
    const codes = await cognito.codesFor(email);
    expect(codes).toHaveLength(2);
    const second = codes.find((code) => code !== first) ?? first;
    if (second !== first) {
      expect((await rejection(confirm(email, first))).name).toBe("CodeMismatchException");
    }
    await confirm(email, second);
    expect(await attributesOf(email)).toMatchObject({ status: "CONFIRMED", email_verified: "true" });
  });

  // For a confirmed user Cognito refuses with InvalidParameterException ("User is already confirmed.").
  test("a confirmed user gives InvalidParameterException and no code is sent", async () => {
    const email = cognito.email("resend-confirmed");
    await cognito.confirmedMember(email);
    const error = await rejection(resend(email));
    expect(error.name).toBe("InvalidParameterException");
    expect(error.message).toBe("User is already confirmed.");
    expect(await cognito.codesFor(email)).toHaveLength(1);
  });

  // API_ResendConfirmationCode, errors: UserNotFoundException (LEGACY user existence errors).
  test("an unknown user gives UserNotFoundException", async () => {
    expect((await rejection(resend(cognito.email("resend-nobody")))).name).toBe("UserNotFoundException");
  });
});

describe("AdminDeleteUser of an unconfirmed sign-up (the app replaces one, so the password typed last wins)", () => {
  const deleteUser = (email: string) =>
    cognito.cognito.send(new AdminDeleteUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));

  // API_AdminDeleteUser deletes the user, whatever its status; API_SignUp then registers the address afresh: a new
  // sub, the new password, a newly mailed code. The deleted user's code confirms nothing any more.
  test("frees the address: a new sign-up gets a new sub, its own password and a fresh code", async () => {
    const email = cognito.email("replaced");
    const first = await signUp(email, "first-password-1");
    const firstCode = await cognito.latestCode(email);
    await deleteUser(email);
    const second = await signUp(email, "second-password-2");
    expect(second.UserSub).not.toBe(first.UserSub);
    const codes = await cognito.codesFor(email);
    expect(codes).toHaveLength(2);
    const secondCode = codes[0]!;
    if (secondCode !== firstCode)
      expect((await rejection(confirm(email, firstCode))).name).toBe("CodeMismatchException");
    await confirm(email, secondCode);
    expect(await attributesOf(email)).toMatchObject({ status: "CONFIRMED", sub: second.UserSub });
    await expect(cognito.signIn(email, "second-password-2")).resolves.toHaveProperty("AccessToken");
    expect((await rejection(cognito.signIn(email, "first-password-1"))).name).toBe("NotAuthorizedException");
  });

  // API_AdminDeleteUser, errors: UserNotFoundException (the app counts it as done).
  test("an unknown user gives UserNotFoundException", async () => {
    expect((await rejection(deleteUser(cognito.email("delete-nobody")))).name).toBe("UserNotFoundException");
  });

  // API_AdminCreateUser, response: User with its Attributes, the sub among them (the legacy migration records it
  // before the next step, so that a half-made user can be recognised later).
  test("AdminCreateUser answers the new user's sub", async () => {
    const email = cognito.email("created-sub");
    const created = await cognito.cognito.send(
      new AdminCreateUserCommand({ UserPoolId: cognito.userPoolId, Username: email, MessageAction: "SUPPRESS" }),
    );
    const sub = created.User?.Attributes?.find((attribute) => attribute.Name === "sub")?.Value;
    expect(sub).toMatch(/^[0-9a-f-]{36}$/);
    expect(await attributesOf(email)).toMatchObject({ status: "FORCE_CHANGE_PASSWORD", sub });
  });
});
