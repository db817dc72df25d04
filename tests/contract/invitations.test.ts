/**
 * Contract: users created by an administrator (the staff CSV import) as the Amazon Cognito user pools API reference
 * describes them, through the AWS SDK against the stand-in: AdminCreateUser's invitation (the pool's
 * InviteMessageTemplate, else Cognito's default text) with a temporary password that meets the password policy,
 * MessageAction RESEND, the temporary password's expiry (TemporaryPasswordValidityDays), the NEW_PASSWORD_REQUIRED
 * challenge answered with AdminRespondToAuthChallenge, and ForgotPassword for a user who never signed in.
 */
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  CreateUserPoolCommand,
  ForgotPasswordCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ageInvitation, expireChallengeSessions } from "../support/stand-ins/stand-in/harness-client";
import { type ContractStandIn, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("invitations");
});

afterAll(async () => {
  await cognito?.stop();
});

const invite = (email: string, options: { messageAction?: "RESEND"; userPoolId?: string } = {}) =>
  cognito.cognito.send(
    new AdminCreateUserCommand({
      UserPoolId: options.userPoolId ?? cognito.userPoolId,
      Username: email,
      DesiredDeliveryMediums: ["EMAIL"],
      ...(options.messageAction ? { MessageAction: options.messageAction } : {}),
      UserAttributes: [
        { Name: "email", Value: email },
        { Name: "email_verified", Value: "true" },
      ],
    }),
  );

const adminAuth = (email: string, password: string) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );

const answerChallenge = (input: { username: string; session: string | undefined; newPassword: string }) =>
  cognito.cognito.send(
    new AdminRespondToAuthChallengeCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      ChallengeName: "NEW_PASSWORD_REQUIRED",
      Session: input.session,
      ChallengeResponses: { USERNAME: input.username, NEW_PASSWORD: input.newPassword },
    }),
  );

const statusOf = async (email: string) =>
  (await cognito.cognito.send(new AdminGetUserCommand({ UserPoolId: cognito.userPoolId, Username: email }))).UserStatus;

/** The temporary password of the newest invitation mailed to `email`. */
async function temporaryPasswordOf(email: string): Promise<string> {
  const [invitation] = await cognito.messagesFor(email);
  if (!invitation?.code) throw new Error(`No invitation was mailed to ${email}`);
  return invitation.code;
}

describe("AdminCreateUser with DesiredDeliveryMediums EMAIL", () => {
  // API_AdminCreateUser: "sends a welcome message" with a temporary password that "conforms to the password policy";
  // the message is AdminCreateUserConfig.InviteMessageTemplate, {username} and {####} replaced.
  test("mails the pool's invitation with a temporary password that meets the policy", async () => {
    const email = cognito.email("invited");
    const created = await invite(email);
    expect(created.User?.UserStatus).toBe("FORCE_CHANGE_PASSWORD");
    const [invitation] = await cognito.messagesFor(email);
    expect(invitation?.subject).toBe("IDアカウントのご案内 / Your ID account");
    const temporaryPassword = invitation!.code!;
    // At least the policy's minimum (8); cognito-local's own would be 6 characters.
    expect(temporaryPassword.length).toBeGreaterThanOrEqual(8);
    expect(invitation!.text).toContain(`仮パスワード: ${temporaryPassword}`);
    expect(invitation!.text).toContain(`Temporary password: ${temporaryPassword}`);
    expect(invitation!.text).toContain(created.User!.Username!);
    expect(invitation!.text).toContain("/en/auth/sign-in/");
    expect(invitation!.text).not.toContain("{####}");
  });

  // The Cognito console's default invitation when the pool sets no template.
  test("a pool without a template mails Cognito's default text", async () => {
    const pool = await cognito.cognito.send(
      new CreateUserPoolCommand({ PoolName: "no-template", UsernameAttributes: ["email"] }),
    );
    const email = cognito.email("default-text");
    const created = await invite(email, { userPoolId: pool.UserPool!.Id! });
    const [invitation] = await cognito.messagesFor(email);
    expect(invitation?.subject).toBe("Your temporary password");
    expect(invitation?.text).toBe(
      `Your username is ${created.User!.Username!} and temporary password is ${invitation!.code!}.`,
    );
  });
});

describe("NEW_PASSWORD_REQUIRED and AdminRespondToAuthChallenge", () => {
  // API_AdminInitiateAuth: FORCE_CHANGE_PASSWORD answers the challenge with a Session; API_AdminRespondToAuthChallenge:
  // NEW_PASSWORD and USERNAME answer it, "NotAuthorizedException" for a session that is not valid, and a new
  // password that fails the policy is InvalidPasswordException; success returns the tokens of a sign-in.
  test("the temporary password is challenged; a conforming new password confirms the user and signs in", async () => {
    const email = cognito.email("first-sign-in");
    await invite(email);
    const temporaryPassword = await temporaryPasswordOf(email);
    const challenge = await adminAuth(email, temporaryPassword);
    expect(challenge.ChallengeName).toBe("NEW_PASSWORD_REQUIRED");
    expect(challenge.AuthenticationResult).toBeUndefined();
    const username = challenge.ChallengeParameters!.USER_ID_FOR_SRP!;

    const wrongSession = await rejection(
      answerChallenge({ username, session: "not-a-session", newPassword: "my-own-password-1" }),
    );
    expect(wrongSession.name).toBe("NotAuthorizedException");
    expect(wrongSession.message).toBe("Invalid session for the user, session is expired.");

    const weak = await rejection(answerChallenge({ username, session: challenge.Session, newPassword: "short" }));
    expect(weak.name).toBe("InvalidPasswordException");
    expect(await statusOf(email)).toBe("FORCE_CHANGE_PASSWORD");

    const answered = await answerChallenge({
      username,
      session: challenge.Session,
      newPassword: "my-own-password-1",
    });
    const tokens = answered.AuthenticationResult!;
    expect(tokens.TokenType).toBe("Bearer");
    expect(tokens.ExpiresIn).toBe(3600);
    expect(tokens.RefreshToken).toBeTruthy();
    expect(decodeJwt(tokens.AccessToken!).origin_jti).toBe(decodeJwt(tokens.RefreshToken!).jti);
    expect(decodeJwt(tokens.IdToken!).email).toBe(email);
    expect(await statusOf(email)).toBe("CONFIRMED");

    // The session is used up; the temporary password no longer works, the new one does, and so does the refresh.
    const reused = await rejection(
      answerChallenge({ username, session: challenge.Session, newPassword: "another-password-1" }),
    );
    expect(reused.name).toBe("NotAuthorizedException");
    expect((await rejection(adminAuth(email, temporaryPassword))).name).toBe("NotAuthorizedException");
    expect((await adminAuth(email, "my-own-password-1")).AuthenticationResult?.AccessToken).toBeTruthy();
    const refreshed = await cognito.cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: cognito.userPoolId,
        ClientId: cognito.clientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: tokens.RefreshToken! },
      }),
    );
    expect(refreshed.AuthenticationResult?.AccessToken).toBeTruthy();
  });

  // AuthSessionValidity (default 3 minutes): an older Session is refused; another user's Session is refused.
  test("an expired session, or one issued to another user, is refused", async () => {
    const email = cognito.email("slow");
    const other = cognito.email("other");
    await invite(email);
    await invite(other);
    const mine = await adminAuth(email, await temporaryPasswordOf(email));
    const theirs = await adminAuth(other, await temporaryPasswordOf(other));
    const crossed = await rejection(
      answerChallenge({ username: email, session: theirs.Session, newPassword: "my-own-password-1" }),
    );
    expect(crossed.name).toBe("NotAuthorizedException");

    await expireChallengeSessions(cognito.endpoint);
    const expired = await rejection(
      answerChallenge({ username: email, session: mine.Session, newPassword: "my-own-password-1" }),
    );
    expect(expired.name).toBe("NotAuthorizedException");
    expect(expired.message).toBe("Invalid session for the user, session is expired.");
    expect(await statusOf(email)).toBe("FORCE_CHANGE_PASSWORD");
  });
});

describe("MessageAction RESEND and the temporary password's expiry", () => {
  // API_AdminCreateUser, MessageAction: "Set to RESEND to resend the invitation message to a user that already
  // exists, and to reset the temporary-password duration with a new temporary password."
  test("RESEND mails a new temporary password; the previous one stops working", async () => {
    const email = cognito.email("resend");
    await invite(email);
    const first = await temporaryPasswordOf(email);
    await invite(email, { messageAction: "RESEND" });
    const second = await temporaryPasswordOf(email);
    expect(second).not.toBe(first);
    expect(await cognito.messagesFor(email)).toHaveLength(2);
    expect((await rejection(adminAuth(email, first))).name).toBe("NotAuthorizedException");
    expect((await adminAuth(email, second)).ChallengeName).toBe("NEW_PASSWORD_REQUIRED");
  });

  // API_AdminCreateUser, errors: UnsupportedUserStateException "the user is in an unsupported state" (RESEND for
  // a user who has chosen a password); UserNotFoundException for nobody.
  test("RESEND for a confirmed user is UnsupportedUserStateException; for nobody UserNotFoundException", async () => {
    const email = cognito.email("confirmed");
    await cognito.confirmedMember(email);
    const confirmed = await rejection(invite(email, { messageAction: "RESEND" }));
    expect(confirmed.name).toBe("UnsupportedUserStateException");
    const nobody = await rejection(invite(cognito.email("nobody"), { messageAction: "RESEND" }));
    expect(nobody.name).toBe("UserNotFoundException");
  });

  // PasswordPolicyType.TemporaryPasswordValidityDays (default 7): past it, the temporary password "must be reset by
  // an administrator" (RESEND), which starts the days again.
  test("an expired temporary password is refused with its own message until RESEND", async () => {
    const email = cognito.email("expired");
    await invite(email);
    const temporaryPassword = await temporaryPasswordOf(email);
    await ageInvitation(cognito.endpoint, cognito.userPoolId, email, 8);
    const expired = await rejection(adminAuth(email, temporaryPassword));
    expect(expired.name).toBe("NotAuthorizedException");
    expect(expired.message).toBe("Temporary password has expired and must be reset by an administrator.");
    // A wrong password still reads as one: the expiry is only told to whoever knows the temporary password.
    expect((await rejection(adminAuth(email, "not-it-at-all"))).message).toBe("Incorrect username or password.");

    await invite(email, { messageAction: "RESEND" });
    expect((await adminAuth(email, await temporaryPasswordOf(email))).ChallengeName).toBe("NEW_PASSWORD_REQUIRED");
  });

  // ForgotPassword for a FORCE_CHANGE_PASSWORD user: NotAuthorizedException, no code is sent.
  test("ForgotPassword refuses a user who never chose a password", async () => {
    const email = cognito.email("forgot-invited");
    await invite(email);
    const error = await rejection(
      cognito.cognito.send(new ForgotPasswordCommand({ ClientId: cognito.clientId, Username: email })),
    );
    expect(error.name).toBe("NotAuthorizedException");
    expect(error.message).toBe("User password cannot be reset in the current state.");
    expect(await cognito.messagesFor(email)).toHaveLength(1);
  });
});
