import {
  AdminInitiateAuthCommand,
  type AdminInitiateAuthCommandOutput,
  AdminRespondToAuthChallengeCommand,
  AdminUserGlobalSignOutCommand,
  AssociateSoftwareTokenCommand,
  type AuthenticationResultType,
  ChangePasswordCommand,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  ForgotPasswordCommand,
  ResendConfirmationCodeCommand,
  RevokeTokenCommand,
  SignUpCommand,
  VerifySoftwareTokenCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import type { Locale } from "~/i18n/locales";
import { logger } from "~/integrations/logger.server";
import { type CognitoPool, callCognito as call, toAttributeList } from "./cognito-calls.server";
import { type CognitoOperation, toIdentityError } from "./cognito-errors.server";
import { SELF_SERVICE_SCOPE } from "./pre-token-generation";

export interface IdentityTokens {
  accessToken: string;
  idToken: string;
  /** Absent on refresh: Cognito keeps the refresh token it issued at sign-in. */
  refreshToken?: string;
  expiresInS: number;
}

/**
 * What a password sign-in answers: the tokens, or, for a member staff invited (AdminCreateUser) signing in with the
 * temporary password, Cognito's NEW_PASSWORD_REQUIRED challenge, to be answered with `answerNewPasswordChallenge`.
 */
export type PasswordSignIn =
  | { kind: "tokens"; tokens: IdentityTokens }
  | {
      kind: "newPasswordRequired";
      /** Cognito's user name (the sub in a pool that signs in by e-mail), which the answer must name. */
      username: string;
      /** Cognito's challenge Session: valid for the app client's AuthSessionValidity (3 minutes by default). */
      session: string;
    }
  | {
      /**
       * The member turned on 2-step verification: Cognito checked the password and asks for the authenticator app's
       * code (SOFTWARE_TOKEN_MFA), to be answered with `answerSoftwareTokenChallenge` within the same Session.
       */
      kind: "softwareTokenRequired";
      username: string;
      session: string;
    };

/**
 * An access token of the server-only app client (COGNITO_SERVER_CLIENT_ID), the one kind Cognito's self-service
 * operations accept (it keeps the aws.cognito.signin.user.admin scope). Never put in a cookie, an answer or a log:
 * it can change the member's credentials at Cognito. A type of its own, so a member's token cannot be passed where
 * one is needed.
 */
export interface ServerToken {
  readonly kind: "server";
  readonly accessToken: string;
  readonly sub: string;
  /** Cognito's user name, which its challenges name (the sub in a pool that signs in by e-mail). */
  readonly username: string;
  readonly expiresAt: Date;
}

/** Whose tokens a set of flows gets: tokens that leave the server (members', staff) or the server-only client's. */
export interface FlowOptions {
  /**
   * The tokens go to a browser, a cookie or a sibling: a token carrying the self-service scope is refused here, so a
   * pool without the pre token generation trigger fails closed instead of handing out power over credentials.
   */
  tokensLeaveServer: boolean;
}

export function toTokens(
  result: AuthenticationResultType | undefined,
  operation: CognitoOperation,
  options: FlowOptions = { tokensLeaveServer: true },
): IdentityTokens {
  if (!result?.AccessToken || !result.IdToken) throw toIdentityError(new Error("no tokens"), operation);
  if (options.tokensLeaveServer && hasSelfServiceScope(result.AccessToken)) {
    logger.error(
      { operation },
      "Cognito issued an access token with the self-service scope to a client whose tokens leave the server: the " +
        "pool's pre token generation trigger is missing or wrong (docs/deployment.md); the sign-in is refused",
    );
    throw toIdentityError(new Error("access token with the self-service scope"), operation);
  }
  return {
    accessToken: result.AccessToken,
    idToken: result.IdToken,
    refreshToken: result.RefreshToken,
    expiresInS: result.ExpiresIn ?? 3600,
  };
}

/** Straight from Cognito over TLS: decoding is enough to read what it says of itself. */
function hasSelfServiceScope(accessToken: string): boolean {
  const scope = decodeJwt(accessToken).scope;
  return typeof scope === "string" && scope.split(" ").includes(SELF_SERVICE_SCOPE);
}

/** The server-only client's sign-in as a ServerToken (its refresh token is dropped: nothing renews the token). */
export function toServerToken(tokens: IdentityTokens): ServerToken {
  const claims = decodeJwt(tokens.accessToken);
  return {
    kind: "server",
    accessToken: tokens.accessToken,
    sub: String(claims.sub ?? ""),
    username: String(claims.username ?? claims.sub ?? ""),
    expiresAt: new Date(Number(claims.exp ?? 0) * 1000),
  };
}

/**
 * The calls of a member's own flows: sign-up and its confirmation, sign-in (with the first sign-in's challenge),
 * tokens refreshed and revoked, signing out everywhere, the forgotten and the changed password. Part of the identity
 * provider (identity-provider.server.ts), which adds the calls on users that staff, jobs and the directory make.
 * The self-service calls (the authenticator, the password change) take a ServerToken.
 */
export function memberFlows({ client, UserPoolId, ClientId }: CognitoPool, options: FlowOptions) {
  const tokensOf = (result: AuthenticationResultType | undefined, operation: CognitoOperation) =>
    toTokens(result, operation, options);
  function initiatePasswordAuth(
    input: { email: string; password: string },
    abortSignal: AbortSignal,
  ): Promise<AdminInitiateAuthCommandOutput> {
    return client.send(
      new AdminInitiateAuthCommand({
        UserPoolId,
        ClientId,
        AuthFlow: "ADMIN_USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: input.email, PASSWORD: input.password },
      }),
      { abortSignal },
    );
  }

  return {
    signUp: (input: { email: string; password: string; locale: string }) =>
      call("SignUp", async (abortSignal) => {
        const output = await client.send(
          new SignUpCommand({
            ClientId,
            Username: input.email,
            Password: input.password,
            UserAttributes: toAttributeList({ email: input.email, locale: input.locale }),
            // The pool's custom message trigger words the code mail in the page's language (custom-message.ts).
            ClientMetadata: { locale: input.locale },
          }),
          { abortSignal },
        );
        return { sub: output.UserSub ?? "", confirmed: output.UserConfirmed ?? false };
      }),

    confirmSignUp: (input: { email: string; code: string }) =>
      call("ConfirmSignUp", (abortSignal) =>
        client.send(new ConfirmSignUpCommand({ ClientId, Username: input.email, ConfirmationCode: input.code }), {
          abortSignal,
        }),
      ).then(() => undefined),

    resendConfirmationCode: (input: { email: string; locale: Locale }) =>
      call("ResendConfirmationCode", (abortSignal) =>
        client.send(
          new ResendConfirmationCodeCommand({
            ClientId,
            Username: input.email,
            ClientMetadata: { locale: input.locale },
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    /** The tokens of a password sign-in, where no challenge is possible (a signed-in member re-checked). */
    signIn: (input: { email: string; password: string }) =>
      call("AdminInitiateAuth", async (abortSignal) =>
        tokensOf((await initiatePasswordAuth(input, abortSignal)).AuthenticationResult, "AdminInitiateAuth"),
      ),

    /** The sign-in form's password sign-in: the tokens, or the first sign-in's new-password challenge. */
    beginSignIn: (input: { email: string; password: string }) =>
      call("AdminInitiateAuth", async (abortSignal): Promise<PasswordSignIn> => {
        const output = await initiatePasswordAuth(input, abortSignal);
        const username = output.ChallengeParameters?.USER_ID_FOR_SRP ?? input.email;
        if (output.ChallengeName === "NEW_PASSWORD_REQUIRED" && output.Session) {
          return { kind: "newPasswordRequired", username, session: output.Session };
        }
        if (output.ChallengeName === "SOFTWARE_TOKEN_MFA" && output.Session) {
          return { kind: "softwareTokenRequired", username, session: output.Session };
        }
        return { kind: "tokens", tokens: tokensOf(output.AuthenticationResult, "AdminInitiateAuth") };
      }),

    /** Answers NEW_PASSWORD_REQUIRED with the member's own password: the user is CONFIRMED and signed in. */
    answerNewPasswordChallenge: (input: { username: string; session: string; newPassword: string }) =>
      call("AdminRespondToAuthChallenge", async (abortSignal) => {
        const output = await client.send(
          new AdminRespondToAuthChallengeCommand({
            UserPoolId,
            ClientId,
            ChallengeName: "NEW_PASSWORD_REQUIRED",
            Session: input.session,
            ChallengeResponses: { USERNAME: input.username, NEW_PASSWORD: input.newPassword },
          }),
          { abortSignal },
        );
        return tokensOf(output.AuthenticationResult, "AdminRespondToAuthChallenge");
      }),

    /**
     * Answers SOFTWARE_TOKEN_MFA with the authenticator app's code. A wrong or already used code is
     * "authenticatorCodeMismatch" (the Session may be tried again); a Session used up or too old is "challengeExpired".
     */
    answerSoftwareTokenChallenge: (input: { username: string; session: string; code: string }) =>
      call("AdminRespondToAuthChallenge", async (abortSignal) => {
        const output = await client.send(
          new AdminRespondToAuthChallengeCommand({
            UserPoolId,
            ClientId,
            ChallengeName: "SOFTWARE_TOKEN_MFA",
            Session: input.session,
            ChallengeResponses: { USERNAME: input.username, SOFTWARE_TOKEN_MFA_CODE: input.code },
          }),
          { abortSignal },
        );
        return tokensOf(output.AuthenticationResult, "AdminRespondToAuthChallenge");
      }),

    /**
     * A new authenticator secret for the signed-in member (Base32, as authenticator apps take it). Each call replaces
     * the secret not yet verified; a verified one stays in force until VerifySoftwareToken succeeds with the new one.
     */
    associateSoftwareToken: (token: ServerToken) =>
      call("AssociateSoftwareToken", async (abortSignal) => {
        const output = await client.send(new AssociateSoftwareTokenCommand({ AccessToken: token.accessToken }), {
          abortSignal,
        });
        if (!output.SecretCode) throw toIdentityError(new Error("no secret"), "AssociateSoftwareToken");
        return output.SecretCode;
      }),

    /** The first code from the app, which makes the associated secret the member's (Status SUCCESS). */
    verifySoftwareToken: (input: { token: ServerToken; code: string }) =>
      call("VerifySoftwareToken", async (abortSignal) => {
        const output = await client.send(
          new VerifySoftwareTokenCommand({ AccessToken: input.token.accessToken, UserCode: input.code }),
          { abortSignal },
        );
        // ERROR without an exception is a code Cognito did not accept.
        if (output.Status !== "SUCCESS") {
          throw toIdentityError(
            Object.assign(new Error("not verified"), { name: "CodeMismatchException" }),
            "VerifySoftwareToken",
          );
        }
      }),

    refresh: (refreshToken: string) =>
      call("RefreshToken", async (abortSignal) => {
        const output = await client.send(
          new AdminInitiateAuthCommand({
            UserPoolId,
            ClientId,
            AuthFlow: "REFRESH_TOKEN_AUTH",
            AuthParameters: { REFRESH_TOKEN: refreshToken },
          }),
          { abortSignal },
        );
        return tokensOf(output.AuthenticationResult, "RefreshToken");
      }),

    revokeRefreshToken: (refreshToken: string) =>
      call("RevokeToken", (abortSignal) =>
        client.send(new RevokeTokenCommand({ ClientId, Token: refreshToken }), { abortSignal }),
      ).then(() => undefined),

    signOutEverywhere: (username: string) =>
      call("AdminUserGlobalSignOut", (abortSignal) =>
        client.send(new AdminUserGlobalSignOutCommand({ UserPoolId, Username: username }), { abortSignal }),
      ).then(() => undefined),

    forgotPassword: (input: { email: string; locale: Locale }) =>
      call("ForgotPassword", (abortSignal) =>
        client.send(
          new ForgotPasswordCommand({ ClientId, Username: input.email, ClientMetadata: { locale: input.locale } }),
          { abortSignal },
        ),
      ).then(() => undefined),

    confirmForgotPassword: (input: { email: string; code: string; password: string }) =>
      call("ConfirmForgotPassword", (abortSignal) =>
        client.send(
          new ConfirmForgotPasswordCommand({
            ClientId,
            Username: input.email,
            ConfirmationCode: input.code,
            Password: input.password,
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    changePassword: (input: { token: ServerToken; currentPassword: string; newPassword: string }) =>
      call("ChangePassword", (abortSignal) =>
        client.send(
          new ChangePasswordCommand({
            AccessToken: input.token.accessToken,
            PreviousPassword: input.currentPassword,
            ProposedPassword: input.newPassword,
          }),
          { abortSignal },
        ),
      ).then(() => undefined),
  };
}
