/**
 * Contract: sign-in, tokens and sign-out (AdminInitiateAuth, InitiateAuth, REFRESH_TOKEN_AUTH, RevokeToken,
 * GlobalSignOut, AdminUserGlobalSignOut, GetUser, the JWKS) as the Amazon Cognito user pools API reference
 * describes them, through the AWS SDK against the stand-in.
 */
import {
  AdminDeleteUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminInitiateAuthCommand,
  AdminUserGlobalSignOutCommand,
  CreateUserPoolClientCommand,
  ForgotPasswordCommand,
  GetUserCommand,
  GlobalSignOutCommand,
  InitiateAuthCommand,
  RevokeTokenCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ADMIN_GROUP, type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("sign-in");
});

afterAll(async () => {
  await cognito?.stop();
});

const adminAuth = (username: string, password: string) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: cognito.clientId,
      AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
      AuthParameters: { USERNAME: username, PASSWORD: password },
    }),
  );
const refresh = (refreshToken: string, clientId = cognito.clientId) =>
  cognito.cognito.send(
    new AdminInitiateAuthCommand({
      UserPoolId: cognito.userPoolId,
      ClientId: clientId,
      AuthFlow: "REFRESH_TOKEN_AUTH",
      AuthParameters: { REFRESH_TOKEN: refreshToken },
    }),
  );
const getUser = (accessToken: string) => cognito.cognito.send(new GetUserCommand({ AccessToken: accessToken }));

describe("AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH", () => {
  // API_AdminInitiateAuth, response: AuthenticationResult with AccessToken, IdToken, RefreshToken, ExpiresIn (the
  // access token's lifetime in seconds) and TokenType.
  test("the right password returns access, ID and refresh tokens and their lifetime", async () => {
    const email = cognito.email("sign-in");
    await cognito.confirmedMember(email);
    const result = await adminAuth(email, PASSWORD);
    const tokens = result.AuthenticationResult!;
    expect(tokens.AccessToken).toBeTruthy();
    expect(tokens.IdToken).toBeTruthy();
    expect(tokens.RefreshToken).toBeTruthy();
    expect(tokens.TokenType).toBe("Bearer");
    // Cognito's default access token lifetime is 60 minutes; ExpiresIn agrees with the token's own exp.
    expect(tokens.ExpiresIn).toBe(3600);
    const claims = decodeJwt(tokens.AccessToken!);
    expect(claims.exp! - claims.iat!).toBe(tokens.ExpiresIn);
  });

  // API_AdminInitiateAuth, errors: NotAuthorizedException — not authorized (wrong user name or password:
  // "Incorrect username or password.").
  test("a wrong password gives NotAuthorizedException", async () => {
    const email = cognito.email("wrong-password");
    await cognito.confirmedMember(email);
    const error = await rejection(adminAuth(email, "not-the-password"));
    expect(error.name).toBe("NotAuthorizedException");
    expect(error.message).toBe("Incorrect username or password.");
  });

  // API_AdminInitiateAuth, errors: UserNotFoundException — with PreventUserExistenceErrors LEGACY (the default for
  // app clients created through the API), an unknown user name is reported as such.
  test("an unknown user gives UserNotFoundException", async () => {
    expect((await rejection(adminAuth(cognito.email("nobody"), PASSWORD))).name).toBe("UserNotFoundException");
  });

  // API_AdminInitiateAuth, errors: UserNotConfirmedException — the user has not confirmed the sign-up.
  test("an unconfirmed user with the right password gives UserNotConfirmedException", async () => {
    const email = cognito.email("unconfirmed");
    await cognito.cognito.send(new SignUpCommand({ ClientId: cognito.clientId, Username: email, Password: PASSWORD }));
    expect((await rejection(adminAuth(email, PASSWORD))).name).toBe("UserNotConfirmedException");
    // The password is checked first: a wrong one does not reveal the account's state.
    expect((await rejection(adminAuth(email, "not-the-password"))).name).toBe("NotAuthorizedException");
  });

  // API_AdminDisableUser: a deactivated user can't sign in (NotAuthorizedException "User is disabled.") and its
  // tokens are revoked; AdminEnableUser lets it sign in again.
  test("a disabled user gives NotAuthorizedException 'User is disabled.'; its tokens stop working", async () => {
    const email = cognito.email("disabled");
    await cognito.confirmedMember(email);
    const tokens = await cognito.signIn(email);
    await cognito.cognito.send(new AdminDisableUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));
    const error = await rejection(adminAuth(email, PASSWORD));
    expect(error.name).toBe("NotAuthorizedException");
    expect(error.message).toBe("User is disabled.");
    expect((await rejection(refresh(tokens.RefreshToken!))).name).toBe("NotAuthorizedException");
    expect((await rejection(getUser(tokens.AccessToken!))).name).toBe("NotAuthorizedException");
    await cognito.cognito.send(new AdminEnableUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));
    await expect(cognito.signIn(email)).resolves.toHaveProperty("AccessToken");
  });

  // API_AdminDeleteUser: the user is deleted; signing in afterwards finds no such user.
  test("a deleted user gives UserNotFoundException", async () => {
    const email = cognito.email("deleted");
    await cognito.confirmedMember(email);
    await cognito.cognito.send(new AdminDeleteUserCommand({ UserPoolId: cognito.userPoolId, Username: email }));
    expect((await rejection(adminAuth(email, PASSWORD))).name).toBe("UserNotFoundException");
  });
});

describe("InitiateAuth with USER_PASSWORD_AUTH", () => {
  // API_InitiateAuth, errors: NotAuthorizedException / UserNotFoundException, as for AdminInitiateAuth.
  test("answers like AdminInitiateAuth", async () => {
    const email = cognito.email("user-password");
    await cognito.confirmedMember(email);
    const auth = (username: string, password: string) =>
      cognito.cognito.send(
        new InitiateAuthCommand({
          ClientId: cognito.clientId,
          AuthFlow: "USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: username, PASSWORD: password },
        }),
      );
    expect((await auth(email, PASSWORD)).AuthenticationResult?.ExpiresIn).toBe(3600);
    expect((await rejection(auth(email, "not-the-password"))).name).toBe("NotAuthorizedException");
    expect((await rejection(auth(cognito.email("nobody"), PASSWORD))).name).toBe("UserNotFoundException");
  });
});

describe("an app client with PreventUserExistenceErrors ENABLED", () => {
  // Developer guide, "Managing user existence error responses": with ENABLED, authentication answers a generic
  // NotAuthorizedException for an unknown user, and password recovery answers as if a code were sent to a
  // simulated destination. (The app's client keeps the API default, LEGACY.)
  test("hides whether the user exists", async () => {
    const created = await cognito.cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: cognito.userPoolId,
        ClientName: "prevent-existence-errors",
        ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
        PreventUserExistenceErrors: "ENABLED",
      }),
    );
    const ClientId = created.UserPoolClient!.ClientId!;
    const nobody = cognito.email("hidden");
    const error = await rejection(
      cognito.cognito.send(
        new AdminInitiateAuthCommand({
          UserPoolId: cognito.userPoolId,
          ClientId,
          AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
          AuthParameters: { USERNAME: nobody, PASSWORD: PASSWORD },
        }),
      ),
    );
    expect(error.name).toBe("NotAuthorizedException");
    expect(error.message).toBe("Incorrect username or password.");
    const forgot = await cognito.cognito.send(new ForgotPasswordCommand({ ClientId, Username: nobody }));
    expect(forgot.CodeDeliveryDetails?.DeliveryMedium).toBe("EMAIL");
    expect(await cognito.codesFor(nobody)).toHaveLength(0);
  });
});

describe("REFRESH_TOKEN_AUTH, RevokeToken and global sign-out", () => {
  // API_AdminInitiateAuth, REFRESH_TOKEN_AUTH: a valid refresh token returns new access and ID tokens (no new
  // refresh token unless refresh token rotation is on, which this pool does not use).
  test("a refresh token returns new access and ID tokens", async () => {
    const email = cognito.email("refresh");
    await cognito.confirmedMember(email);
    const tokens = await cognito.signIn(email);
    const renewed = (await refresh(tokens.RefreshToken!)).AuthenticationResult!;
    expect(renewed.AccessToken).toBeTruthy();
    expect(renewed.IdToken).toBeTruthy();
    expect(renewed.RefreshToken).toBeUndefined();
    expect(renewed.ExpiresIn).toBe(3600);
    expect(decodeJwt(renewed.AccessToken!).origin_jti).toBe(decodeJwt(tokens.AccessToken!).origin_jti);
  });

  // Developer guide, "Understanding the access token" and "Understanding the identity (ID) token": `auth_time` is
  // "the authentication time, in Unix time format, that your user completed authentication"; tokens from
  // REFRESH_TOKEN_AUTH keep the original sign-in's time while `iat` is the new token's. The staff API's
  // re-authentication rule reads it.
  test("auth_time is the sign-in's time, and a refresh keeps it while the new tokens' iat moves on", async () => {
    const email = cognito.email("auth-time");
    await cognito.confirmedMember(email);
    const tokens = await cognito.signIn(email);
    const signedIn = decodeJwt(tokens.AccessToken!);
    expect(signedIn.auth_time).toBe(signedIn.iat);
    expect(decodeJwt(tokens.IdToken!).auth_time).toBe(signedIn.iat);
    // Tokens count whole seconds: refresh once the next one has begun, so the new iat differs.
    while (Math.floor(Date.now() / 1000) <= signedIn.iat!) await new Promise((resolve) => setTimeout(resolve, 100));
    const renewed = (await refresh(tokens.RefreshToken!)).AuthenticationResult!;
    const access = decodeJwt(renewed.AccessToken!);
    expect(access.iat).toBeGreaterThan(signedIn.iat!);
    expect(access.auth_time).toBe(signedIn.auth_time);
    expect(decodeJwt(renewed.IdToken!).auth_time).toBe(signedIn.auth_time);
  });

  // API_RevokeToken: revokes the refresh token and all access tokens generated from it; after that neither
  // REFRESH_TOKEN_AUTH (NotAuthorizedException) nor Cognito's user APIs (GetUser) accept them. The server-only
  // client's tokens, whose scope GetUser accepts (the other clients' lose it in the pre token generation trigger).
  test("after RevokeToken the refresh token and its access tokens are refused", async () => {
    const email = cognito.email("revoke");
    await cognito.confirmedMember(email);
    const serverClientId = cognito.pool.serverClientId;
    const tokens = await cognito.serverSignIn(email);
    const other = await cognito.serverSignIn(email);
    await expect(getUser(tokens.AccessToken!)).resolves.toHaveProperty("Username");
    await cognito.cognito.send(new RevokeTokenCommand({ ClientId: serverClientId, Token: tokens.RefreshToken! }));
    expect((await rejection(refresh(tokens.RefreshToken!, serverClientId))).name).toBe("NotAuthorizedException");
    const revoked = await rejection(getUser(tokens.AccessToken!));
    expect([revoked.name, revoked.message]).toEqual(["NotAuthorizedException", "Access Token has been revoked"]);
    // Only that sign-in ends: another device's session goes on.
    await expect(refresh(other.RefreshToken!, serverClientId)).resolves.toHaveProperty("AuthenticationResult");
    // Revoking an already revoked token is not an error (NotAuthorizedException is not among RevokeToken's errors).
    await expect(
      cognito.cognito.send(new RevokeTokenCommand({ ClientId: serverClientId, Token: tokens.RefreshToken! })),
    ).resolves.toBeDefined();
  });

  // API_AdminUserGlobalSignOut: invalidates the user's refresh tokens (and revokes its access tokens) on every
  // device; REFRESH_TOKEN_AUTH then gives NotAuthorizedException.
  test("after AdminUserGlobalSignOut every refresh token of the user is refused", async () => {
    const email = cognito.email("admin-global");
    await cognito.confirmedMember(email);
    const first = await cognito.signIn(email);
    const second = await cognito.serverSignIn(email);
    await cognito.cognito.send(new AdminUserGlobalSignOutCommand({ UserPoolId: cognito.userPoolId, Username: email }));
    expect((await rejection(refresh(first.RefreshToken!))).name).toBe("NotAuthorizedException");
    expect((await rejection(refresh(second.RefreshToken!, cognito.pool.serverClientId))).name).toBe(
      "NotAuthorizedException",
    );
    const revoked = await rejection(getUser(second.AccessToken!));
    expect([revoked.name, revoked.message]).toEqual(["NotAuthorizedException", "Access Token has been revoked"]);
    // A new sign-in works again.
    const again = await cognito.serverSignIn(email);
    await expect(getUser(again.AccessToken!)).resolves.toHaveProperty("Username");
  });

  // API_GlobalSignOut: with the user's own access token (one with the self-service scope), invalidates all of the
  // user's tokens.
  test("after GlobalSignOut the user's refresh tokens are refused", async () => {
    const email = cognito.email("global");
    await cognito.confirmedMember(email);
    const tokens = await cognito.signIn(email);
    const server = await cognito.serverSignIn(email);
    await cognito.cognito.send(new GlobalSignOutCommand({ AccessToken: server.AccessToken! }));
    expect((await rejection(refresh(tokens.RefreshToken!))).name).toBe("NotAuthorizedException");
  });

  // API_AdminUserGlobalSignOut, errors: UserNotFoundException.
  test("AdminUserGlobalSignOut of an unknown user gives UserNotFoundException", async () => {
    const error = await rejection(
      cognito.cognito.send(
        new AdminUserGlobalSignOutCommand({ UserPoolId: cognito.userPoolId, Username: cognito.email("nobody") }),
      ),
    );
    expect(error.name).toBe("UserNotFoundException");
  });
});

describe("token claims, verified against the JWKS", () => {
  // Developer guide, "Verifying a JSON web token": the signature verifies against the pool's JWKS at
  // <issuer>/.well-known/jwks.json; iss is the pool's issuer URL; token_use is "access"; client_id is the app client;
  // cognito:groups lists the user's groups; exp is the expiry. The ID token's aud is the app client.
  test("the admin's access and ID tokens verify and carry Cognito's claims", async () => {
    const issuer = `${cognito.endpoint}/${cognito.userPoolId}`;
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const tokens = await cognito.signIn(cognito.pool.admin.email, cognito.pool.admin.password);
    const { payload: access } = await jwtVerify(tokens.AccessToken!, jwks, { issuer });
    expect(access).toMatchObject({ token_use: "access", client_id: cognito.clientId });
    expect(access["cognito:groups"]).toEqual([ADMIN_GROUP]);
    expect(access.exp! * 1000).toBeGreaterThan(Date.now());
    expect(access.exp! - access.iat!).toBe(tokens.ExpiresIn);
    expect(typeof access.origin_jti).toBe("string");

    const { payload: id } = await jwtVerify(tokens.IdToken!, jwks, { issuer, audience: cognito.clientId });
    expect(id).toMatchObject({ token_use: "id", email: cognito.pool.admin.email, email_verified: true });
    expect(id.origin_jti).toBe(access.origin_jti);
  });

  test("a member's tokens carry no cognito:groups claim", async () => {
    const email = cognito.email("claims");
    await cognito.confirmedMember(email);
    const tokens = await cognito.signIn(email);
    expect(decodeJwt(tokens.AccessToken!)["cognito:groups"]).toBeUndefined();
    expect(decodeJwt(tokens.IdToken!)).toMatchObject({ email, email_verified: true });
  });

  // The OpenID configuration names the same issuer and JWKS as the tokens.
  test("the OpenID configuration names the public issuer", async () => {
    const issuer = `${cognito.endpoint}/${cognito.userPoolId}`;
    const configuration = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      string
    >;
    expect(configuration.issuer).toBe(issuer);
    expect(configuration.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
  });
});
