/**
 * Contract: password recovery and change, attributes, administration (ForgotPassword, ConfirmForgotPassword,
 * ChangePassword, AdminUpdateUserAttributes, AdminCreateUser, AdminSetUserPassword, ListUsers,
 * AdminListGroupsForUser) as the Amazon Cognito user pools API reference describes them, through the AWS SDK
 * against the stand-in.
 */
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminListGroupsForUserCommand,
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  ChangePasswordCommand,
  ConfirmForgotPasswordCommand,
  ForgotPasswordCommand,
  GetUserCommand,
  ListUsersCommand,
  SignUpCommand,
  type UserType,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_GROUP, type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("account");
});

afterAll(async () => {
  await cognito?.stop();
});

const forgot = (email: string) =>
  cognito.cognito.send(new ForgotPasswordCommand({ ClientId: cognito.clientId, Username: email }));
const confirmForgot = (email: string, code: string, password: string) =>
  cognito.cognito.send(
    new ConfirmForgotPasswordCommand({
      ClientId: cognito.clientId,
      Username: email,
      ConfirmationCode: code,
      Password: password,
    }),
  );
const adminGetUser = async (username: string) => {
  const user = await cognito.cognito.send(
    new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: username }),
  );
  return { ...user, attributes: Object.fromEntries((user.UserAttributes ?? []).map((a) => [a.Name, a.Value])) };
};
const otherThan = (code: string) => (code === "000000" ? "111111" : "000000");

describe("ForgotPassword and ConfirmForgotPassword", () => {
  // API_ForgotPassword: sends a code to the user's verified e-mail and answers CodeDeliveryDetails;
  // API_ConfirmForgotPassword: the code and a new password reset the password.
  test("the mailed code resets the password; the old password stops working", async () => {
    const email = cognito.email("forgot");
    await cognito.confirmedMember(email);
    const result = await forgot(email);
    expect(result.CodeDeliveryDetails).toMatchObject({ AttributeName: "email", DeliveryMedium: "EMAIL" });
    const code = await cognito.latestCode(email);
    await confirmForgot(email, code, "new-password-2");
    await expect(cognito.signIn(email, "new-password-2")).resolves.toHaveProperty("AccessToken");
    expect((await rejection(cognito.signIn(email, PASSWORD))).name).toBe("NotAuthorizedException");
    // The code is single-use.
    expect((await rejection(confirmForgot(email, code, "third-password-3"))).name).toBe("CodeMismatchException");
  });

  // API_ConfirmForgotPassword, errors: CodeMismatchException; the password stays as it was.
  test("a wrong code gives CodeMismatchException", async () => {
    const email = cognito.email("forgot-wrong");
    await cognito.confirmedMember(email);
    await forgot(email);
    const code = await cognito.latestCode(email);
    expect((await rejection(confirmForgot(email, otherThan(code), "new-password-2"))).name).toBe(
      "CodeMismatchException",
    );
    await expect(cognito.signIn(email)).resolves.toHaveProperty("AccessToken");
  });

  // API_ConfirmForgotPassword, errors: InvalidPasswordException — the new password breaks the pool's policy; the
  // code can still be used with a conforming password.
  test("a short new password gives InvalidPasswordException", async () => {
    const email = cognito.email("forgot-short");
    await cognito.confirmedMember(email);
    await forgot(email);
    const code = await cognito.latestCode(email);
    expect((await rejection(confirmForgot(email, code, "short"))).name).toBe("InvalidPasswordException");
    await confirmForgot(email, code, "long-enough-2");
    await expect(cognito.signIn(email, "long-enough-2")).resolves.toHaveProperty("AccessToken");
  });

  // API_ForgotPassword, errors: UserNotFoundException (LEGACY user existence errors); InvalidParameterException when
  // the user has no verified e-mail to send the code to (e.g. a sign-up that was never confirmed).
  test("an unknown user gives UserNotFoundException; an unverified address InvalidParameterException", async () => {
    expect((await rejection(forgot(cognito.email("forgot-nobody")))).name).toBe("UserNotFoundException");
    const email = cognito.email("forgot-unconfirmed");
    await cognito.cognito.send(new SignUpCommand({ ClientId: cognito.clientId, Username: email, Password: PASSWORD }));
    expect((await rejection(forgot(email))).name).toBe("InvalidParameterException");
  });
});

describe("ChangePassword", () => {
  // API_ChangePassword (with a token carrying aws.cognito.signin.user.admin: the server-only client's): changes the
  // signed-in user's password, given the previous one; errors:
  // NotAuthorizedException for a wrong previous password, InvalidPasswordException for a non-conforming new one.
  test("needs the previous password and a conforming new one", async () => {
    const email = cognito.email("change");
    await cognito.confirmedMember(email);
    const { AccessToken } = await cognito.serverSignIn(email);
    const change = (previous: string, proposed: string) =>
      cognito.cognito.send(
        new ChangePasswordCommand({ AccessToken, PreviousPassword: previous, ProposedPassword: proposed }),
      );
    expect((await rejection(change("not-the-password", "new-password-2"))).name).toBe("NotAuthorizedException");
    expect((await rejection(change(PASSWORD, "short"))).name).toBe("InvalidPasswordException");
    await change(PASSWORD, "new-password-2");
    await expect(cognito.signIn(email, "new-password-2")).resolves.toHaveProperty("AccessToken");
  });
});

describe("AdminUpdateUserAttributes", () => {
  // API_AdminUpdateUserAttributes: updates standard attributes; AdminGetUser and GetUser return them.
  test("locale, family_name and given_name round-trip through AdminGetUser and GetUser", async () => {
    const email = cognito.email("attributes");
    await cognito.confirmedMember(email);
    await cognito.cognito.send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        UserAttributes: [
          { Name: "locale", Value: "en" },
          { Name: "family_name", Value: "山田" },
          { Name: "given_name", Value: "花子" },
        ],
      }),
    );
    expect((await adminGetUser(email)).attributes).toMatchObject({
      locale: "en",
      family_name: "山田",
      given_name: "花子",
      email,
      email_verified: "true",
    });
    const { AccessToken } = await cognito.serverSignIn(email);
    const self = await cognito.cognito.send(new GetUserCommand({ AccessToken }));
    expect(Object.fromEntries((self.UserAttributes ?? []).map((a) => [a.Name, a.Value]))).toMatchObject({
      locale: "en",
      family_name: "山田",
      given_name: "花子",
    });
  });

  // API_AdminUpdateUserAttributes: with e-mail as the username, a new address (set verified, as the app does after
  // its own confirmation link) becomes the sign-in name; errors: AliasExistsException when another account already
  // uses the address.
  test("an e-mail change signs in by the new address; another account's address gives AliasExistsException", async () => {
    const email = cognito.email("change-email");
    const taken = cognito.email("taken");
    await cognito.confirmedMember(email);
    await cognito.confirmedMember(taken);
    const update = (value: string) =>
      cognito.cognito.send(
        new AdminUpdateUserAttributesCommand({
          UserPoolId: cognito.userPoolId,
          Username: email,
          UserAttributes: [
            { Name: "email", Value: value },
            { Name: "email_verified", Value: "true" },
          ],
        }),
      );
    expect((await rejection(update(taken))).name).toBe("AliasExistsException");
    const renewed = cognito.email("renewed");
    await update(renewed);
    expect((await adminGetUser(renewed)).attributes).toMatchObject({ email: renewed, email_verified: "true" });
    await expect(cognito.signIn(renewed)).resolves.toHaveProperty("AccessToken");
    expect((await rejection(cognito.signIn(email))).name).toBe("UserNotFoundException");
  });

  // API_AdminUpdateUserAttributes, errors: UserNotFoundException.
  test("an unknown user gives UserNotFoundException", async () => {
    const error = await rejection(
      cognito.cognito.send(
        new AdminUpdateUserAttributesCommand({
          UserPoolId: cognito.userPoolId,
          Username: cognito.email("nobody"),
          UserAttributes: [{ Name: "locale", Value: "ja" }],
        }),
      ),
    );
    expect(error.name).toBe("UserNotFoundException");
  });
});

describe("AdminCreateUser and AdminSetUserPassword (legacy account migration)", () => {
  // API_AdminCreateUser with MessageAction SUPPRESS: creates the user without sending a message (status
  // FORCE_CHANGE_PASSWORD); API_AdminSetUserPassword with Permanent true: the password is final and the user
  // CONFIRMED, so it signs in with it.
  test("a suppressed creation plus a permanent password signs in", async () => {
    const email = cognito.email("migrated");
    const created = await cognito.cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        MessageAction: "SUPPRESS",
        UserAttributes: [
          { Name: "email", Value: email },
          { Name: "email_verified", Value: "true" },
        ],
      }),
    );
    expect(created.User?.UserStatus).toBe("FORCE_CHANGE_PASSWORD");
    expect(await cognito.codesFor(email)).toHaveLength(0);
    await cognito.cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        Password: "legacy-pass-1",
        Permanent: true,
      }),
    );
    expect((await adminGetUser(email)).UserStatus).toBe("CONFIRMED");
    await expect(cognito.signIn(email, "legacy-pass-1")).resolves.toHaveProperty("AccessToken");
  });

  // API_AdminSetUserPassword / API_AdminCreateUser, errors: InvalidPasswordException for a password that breaks
  // the policy; UsernameExistsException for an existing user.
  test("short passwords give InvalidPasswordException; an existing user UsernameExistsException", async () => {
    const email = cognito.email("migrated-short");
    const create = (temporary?: string) =>
      cognito.cognito.send(
        new AdminCreateUserCommand({
          UserPoolId: cognito.userPoolId,
          Username: email,
          MessageAction: "SUPPRESS",
          ...(temporary ? { TemporaryPassword: temporary } : {}),
        }),
      );
    expect((await rejection(create("short"))).name).toBe("InvalidPasswordException");
    await create();
    expect((await rejection(create())).name).toBe("UsernameExistsException");
    const error = await rejection(
      cognito.cognito.send(
        new AdminSetUserPasswordCommand({
          UserPoolId: cognito.userPoolId,
          Username: email,
          Password: "short",
          Permanent: true,
        }),
      ),
    );
    expect(error.name).toBe("InvalidPasswordException");
  });

  // API_AdminInitiateAuth: a user in FORCE_CHANGE_PASSWORD gets the NEW_PASSWORD_REQUIRED challenge, not tokens.
  test("a user with only a temporary password is challenged for a new one", async () => {
    const email = cognito.email("temporary");
    await cognito.cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: cognito.userPoolId,
        Username: email,
        MessageAction: "SUPPRESS",
        TemporaryPassword: "temporary-1",
      }),
    );
    const result = await cognito.cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: cognito.clientId,
        AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD: "temporary-1" },
      }),
    );
    expect(result.ChallengeName).toBe("NEW_PASSWORD_REQUIRED");
    expect(result.AuthenticationResult).toBeUndefined();
  });
});

describe("ListUsers", () => {
  // API_ListUsers: Limit is the page size, at most 60 (a larger Limit is refused); PaginationToken in the answer
  // while more users remain, passed back to get the next page. Filter: `attribute = "value"` or `^=` (prefix).
  test("pages by at most 60 with a PaginationToken, and filters", async () => {
    const prefix = `paging-${Date.now()}`;
    for (let index = 0; index < 61; index += 1) {
      await cognito.cognito.send(
        new AdminCreateUserCommand({
          UserPoolId: cognito.userPoolId,
          Username: `${prefix}-${String(index).padStart(2, "0")}@example.jp`,
          MessageAction: "SUPPRESS",
        }),
      );
    }
    const list = (input: { Limit?: number; PaginationToken?: string; Filter?: string }) =>
      cognito.cognito.send(new ListUsersCommand({ UserPoolId: cognito.userPoolId, ...input }));

    const everyone: UserType[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await list({ PaginationToken: token });
      expect(page.Users!.length).toBeLessThanOrEqual(60);
      everyone.push(...page.Users!);
      token = page.PaginationToken;
      pages += 1;
    } while (token);
    expect(pages).toBeGreaterThanOrEqual(2);
    const usernames = everyone.map((user) => user.Username);
    expect(new Set(usernames).size).toBe(usernames.length);

    const filter = `email ^= "${prefix}-"`;
    const first = await list({ Filter: filter });
    expect(first.Users).toHaveLength(60);
    expect(first.PaginationToken).toBeTruthy();
    const second = await list({ Filter: filter, PaginationToken: first.PaginationToken });
    expect(second.Users).toHaveLength(1);
    expect(second.PaginationToken).toBeUndefined();

    const small = await list({ Filter: filter, Limit: 25 });
    expect(small.Users).toHaveLength(25);

    const exact = await list({ Filter: `email = "${prefix}-07@example.jp"` });
    expect(exact.Users?.map((user) => user.Attributes?.find((a) => a.Name === "email")?.Value)).toEqual([
      `${prefix}-07@example.jp`,
    ]);
    expect((await rejection(list({ Limit: 61 }))).name).toBe("InvalidParameterException");
  });

  test("filters on status and cognito:user_status", async () => {
    const email = cognito.email("status");
    await cognito.cognito.send(new SignUpCommand({ ClientId: cognito.clientId, Username: email, Password: PASSWORD }));
    const unconfirmed = await cognito.cognito.send(
      new ListUsersCommand({ UserPoolId: cognito.userPoolId, Filter: 'cognito:user_status = "UNCONFIRMED"' }),
    );
    expect(unconfirmed.Users?.some((user) => user.Attributes?.some((a) => a.Value === email))).toBe(true);
    const enabled = await cognito.cognito.send(
      new ListUsersCommand({ UserPoolId: cognito.userPoolId, Filter: 'status = "Enabled"', Limit: 60 }),
    );
    expect(enabled.Users?.length).toBeGreaterThan(0);
  });
});

describe("AdminListGroupsForUser", () => {
  // API_AdminListGroupsForUser: lists the groups the user belongs to; Username may be the e-mail alias.
  test("lists the admin's groups when asked by e-mail address", async () => {
    const groups = await cognito.cognito.send(
      new AdminListGroupsForUserCommand({ UserPoolId: cognito.userPoolId, Username: cognito.pool.admin.email }),
    );
    expect(groups.Groups?.map((group) => group.GroupName)).toEqual([ADMIN_GROUP]);
    expect(groups.Groups?.[0]?.UserPoolId).toBe(cognito.userPoolId);
  });

  test("a member has no groups; an unknown user gives UserNotFoundException", async () => {
    const email = cognito.email("no-groups");
    await cognito.confirmedMember(email);
    const groups = await cognito.cognito.send(
      new AdminListGroupsForUserCommand({ UserPoolId: cognito.userPoolId, Username: email }),
    );
    expect(groups.Groups).toEqual([]);
    const error = await rejection(
      cognito.cognito.send(
        new AdminListGroupsForUserCommand({ UserPoolId: cognito.userPoolId, Username: cognito.email("nobody") }),
      ),
    );
    expect(error.name).toBe("UserNotFoundException");
  });
});
