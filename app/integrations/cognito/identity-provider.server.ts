import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminInitiateAuthCommand,
  type AdminInitiateAuthCommandOutput,
  AdminRespondToAuthChallengeCommand,
  AdminListGroupsForUserCommand,
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  AdminUserGlobalSignOutCommand,
  type AttributeType,
  type AuthenticationResultType,
  ChangePasswordCommand,
  type CognitoIdentityProviderClient,
  ConfirmForgotPasswordCommand,
  ConfirmSignUpCommand,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  ForgotPasswordCommand,
  GetGroupCommand,
  ListGroupsCommand,
  ListUsersCommand,
  ListUsersInGroupCommand,
  ResendConfirmationCodeCommand,
  RevokeTokenCommand,
  SignUpCommand,
  type UserType,
} from "@aws-sdk/client-cognito-identity-provider";
import type { Config } from "~/config.server";
import { type CognitoOperation, IdentityError, toIdentityError } from "./cognito-errors.server";
import { createCognitoClient } from "./cognito-client.server";
import type { DescribedPool } from "./pool-contract.server";

/** The whole call, retries included, must finish within this; past it the member hears "temporarily unavailable". */
export const COGNITO_CALL_DEADLINE_MS = 8_000;

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
    };

export interface IdentityUser {
  sub: string;
  email: string;
  emailVerified: boolean;
  enabled: boolean;
  confirmed: boolean;
  /** Cognito's UserStatus: UNCONFIRMED, CONFIRMED, FORCE_CHANGE_PASSWORD, RESET_REQUIRED, … */
  status: string;
  attributes: Record<string, string>;
  /** Cognito's UserCreateDate and UserLastModifiedDate. */
  createdAt: Date;
  updatedAt: Date;
}

/** One page of ListUsers: Cognito pages by at most 60 users, often fewer, with a token while more remain. */
export interface IdentityUserPage {
  users: IdentityUser[];
  paginationToken?: string;
}

/** What staff see of the pool (GET /api/admin/user-pool). */
export interface PoolSummary {
  id: string;
  name: string;
  /** DescribeUserPool's EstimatedNumberOfUsers: an estimate, not a count. */
  estimatedUsers: number;
  passwordPolicy: {
    minimumLength: number;
    requireUppercase: boolean;
    requireLowercase: boolean;
    requireNumbers: boolean;
    requireSymbols: boolean;
    temporaryPasswordValidityDays: number;
  };
}

export type UserAttributes = Partial<
  Record<"email" | "email_verified" | "locale" | "family_name" | "given_name", string>
>;

function toAttributeList(attributes: UserAttributes): AttributeType[] {
  return Object.entries(attributes)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([Name, Value]) => ({ Name, Value }));
}

function toIdentityUser(input: {
  attributes: AttributeType[] | undefined;
  enabled: boolean | undefined;
  status: string | undefined;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
}): IdentityUser {
  const attributes = Object.fromEntries(
    (input.attributes ?? []).map((attribute) => [attribute.Name ?? "", attribute.Value ?? ""]),
  );
  const createdAt = input.createdAt ?? new Date(0);
  return {
    sub: attributes.sub ?? "",
    email: attributes.email ?? "",
    emailVerified: attributes.email_verified === "true",
    enabled: input.enabled ?? true,
    confirmed: input.status === "CONFIRMED",
    status: input.status ?? "",
    attributes,
    createdAt,
    updatedAt: input.updatedAt ?? createdAt,
  };
}

function fromUserType(user: UserType): IdentityUser {
  return toIdentityUser({
    attributes: user.Attributes,
    enabled: user.Enabled,
    status: user.UserStatus,
    createdAt: user.UserCreateDate,
    updatedAt: user.UserLastModifiedDate,
  });
}

function toTokens(result: AuthenticationResultType | undefined, operation: CognitoOperation): IdentityTokens {
  if (!result?.AccessToken || !result.IdToken) throw toIdentityError(new Error("no tokens"), operation);
  return {
    accessToken: result.AccessToken,
    idToken: result.IdToken,
    refreshToken: result.RefreshToken,
    expiresInS: result.ExpiresIn ?? 3600,
  };
}

/**
 * Every Cognito call the app makes, server-side, through the AWS SDK. Each call has a deadline on top of the
 * SDK's own per-attempt time-out and bounded retries (cognito-client.server.ts); every failure comes out as an
 * IdentityError from the one error table. The stand-in is reached through exactly this code.
 */
export function createIdentityProvider(
  cognito: Config["cognito"],
  client: CognitoIdentityProviderClient = createCognitoClient(cognito),
) {
  const { userPoolId: UserPoolId, clientId: ClientId } = cognito;

  async function call<T>(operation: CognitoOperation, run: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await run(AbortSignal.timeout(COGNITO_CALL_DEADLINE_MS));
    } catch (error) {
      throw toIdentityError(error, operation);
    }
  }

  const getUser = (username: string) =>
    call("AdminGetUser", async (abortSignal): Promise<IdentityUser> => {
      const output = await client.send(new AdminGetUserCommand({ UserPoolId, Username: username }), { abortSignal });
      return toIdentityUser({
        attributes: output.UserAttributes,
        enabled: output.Enabled,
        status: output.UserStatus,
        createdAt: output.UserCreateDate,
        updatedAt: output.UserLastModifiedDate,
      });
    });

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

  /** AdminCreateUser with a verified e-mail (staff vouch for it); the user is FORCE_CHANGE_PASSWORD until first sign-in. */
  async function createUser(
    input: { email: string; attributes: UserAttributes },
    options: { mailInvitation: boolean },
    abortSignal: AbortSignal,
  ): Promise<string> {
    const output = await client.send(
      new AdminCreateUserCommand({
        UserPoolId,
        Username: input.email,
        ...(options.mailInvitation ? { DesiredDeliveryMediums: ["EMAIL"] } : { MessageAction: "SUPPRESS" }),
        UserAttributes: toAttributeList({ ...input.attributes, email: input.email, email_verified: "true" }),
      }),
      { abortSignal },
    );
    const sub = output.User?.Attributes?.find((attribute) => attribute.Name === "sub")?.Value;
    if (!sub) throw new Error("AdminCreateUser answered no sub");
    return sub;
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

    resendConfirmationCode: (email: string) =>
      call("ResendConfirmationCode", (abortSignal) =>
        client.send(new ResendConfirmationCodeCommand({ ClientId, Username: email }), { abortSignal }),
      ).then(() => undefined),

    /** The tokens of a password sign-in, where no challenge is possible (a signed-in member re-checked). */
    signIn: (input: { email: string; password: string }) =>
      call("AdminInitiateAuth", async (abortSignal) =>
        toTokens((await initiatePasswordAuth(input, abortSignal)).AuthenticationResult, "AdminInitiateAuth"),
      ),

    /** The sign-in form's password sign-in: the tokens, or the first sign-in's new-password challenge. */
    beginSignIn: (input: { email: string; password: string }) =>
      call("AdminInitiateAuth", async (abortSignal): Promise<PasswordSignIn> => {
        const output = await initiatePasswordAuth(input, abortSignal);
        if (output.ChallengeName === "NEW_PASSWORD_REQUIRED" && output.Session) {
          return {
            kind: "newPasswordRequired",
            username: output.ChallengeParameters?.USER_ID_FOR_SRP ?? input.email,
            session: output.Session,
          };
        }
        return { kind: "tokens", tokens: toTokens(output.AuthenticationResult, "AdminInitiateAuth") };
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
        return toTokens(output.AuthenticationResult, "AdminRespondToAuthChallenge");
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
        return toTokens(output.AuthenticationResult, "RefreshToken");
      }),

    revokeRefreshToken: (refreshToken: string) =>
      call("RevokeToken", (abortSignal) =>
        client.send(new RevokeTokenCommand({ ClientId, Token: refreshToken }), { abortSignal }),
      ).then(() => undefined),

    signOutEverywhere: (username: string) =>
      call("AdminUserGlobalSignOut", (abortSignal) =>
        client.send(new AdminUserGlobalSignOutCommand({ UserPoolId, Username: username }), { abortSignal }),
      ).then(() => undefined),

    forgotPassword: (email: string) =>
      call("ForgotPassword", (abortSignal) =>
        client.send(new ForgotPasswordCommand({ ClientId, Username: email }), { abortSignal }),
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

    changePassword: (input: { accessToken: string; currentPassword: string; newPassword: string }) =>
      call("ChangePassword", (abortSignal) =>
        client.send(
          new ChangePasswordCommand({
            AccessToken: input.accessToken,
            PreviousPassword: input.currentPassword,
            ProposedPassword: input.newPassword,
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    getUser,

    /** The user, or null when Cognito does not know the name. */
    async findUser(username: string): Promise<IdentityUser | null> {
      try {
        return await getUser(username);
      } catch (error) {
        if (error instanceof IdentityError && error.code === "userNotFound") return null;
        throw error;
      }
    },

    updateAttributes: (username: string, attributes: UserAttributes) =>
      call("AdminUpdateUserAttributes", (abortSignal) =>
        client.send(
          new AdminUpdateUserAttributesCommand({
            UserPoolId,
            Username: username,
            UserAttributes: toAttributeList(attributes),
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    /**
     * A member created by staff (the CSV import): Cognito mails the invitation with a temporary password, and the
     * first sign-in answers the NEW_PASSWORD_REQUIRED challenge. Answers the new user's sub.
     */
    inviteUser: (input: { email: string; attributes: UserAttributes }) =>
      call("AdminCreateUser", (abortSignal) => createUser(input, { mailInvitation: true }, abortSignal)),

    /**
     * A new invitation for a member who has not signed in yet (AdminCreateUser with MessageAction RESEND): a new
     * temporary password, valid for the pool's TemporaryPasswordValidityDays again; the previous one stops working.
     * A member who already chose a password is "invitationNotPending".
     */
    resendInvitation: (email: string) =>
      call("AdminCreateUser", (abortSignal) =>
        client.send(
          new AdminCreateUserCommand({
            UserPoolId,
            Username: email,
            MessageAction: "RESEND",
            DesiredDeliveryMediums: ["EMAIL"],
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    // ---- the legacy migration's steps, separate so that it can undo the creation when a later step fails ----

    /** A user with no usable password yet (FORCE_CHANGE_PASSWORD) and no mail sent; answers its sub. */
    createUnmailedUser: (input: { email: string; attributes: UserAttributes }) =>
      call("AdminCreateUser", (abortSignal) => createUser(input, { mailInvitation: false }, abortSignal)),

    /** Sets the member's own password for good (CONFIRMED). */
    setPermanentPassword: (input: { email: string; password: string }) =>
      call("AdminSetUserPassword", (abortSignal) =>
        client.send(
          new AdminSetUserPasswordCommand({
            UserPoolId,
            Username: input.email,
            Password: input.password,
            Permanent: true,
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    /** Both steps at once, for tests and tools that need a confirmed member with a known password. */
    async createConfirmedUser(input: { email: string; password: string; attributes: UserAttributes }): Promise<void> {
      await this.createUnmailedUser(input);
      await this.setPermanentPassword(input);
    },

    deleteUser: (username: string) =>
      call("AdminDeleteUser", (abortSignal) =>
        client.send(new AdminDeleteUserCommand({ UserPoolId, Username: username }), { abortSignal }),
      ).then(() => undefined),

    disableUser: (username: string) =>
      call("AdminDisableUser", (abortSignal) =>
        client.send(new AdminDisableUserCommand({ UserPoolId, Username: username }), { abortSignal }),
      ).then(() => undefined),

    enableUser: (username: string) =>
      call("AdminEnableUser", (abortSignal) =>
        client.send(new AdminEnableUserCommand({ UserPoolId, Username: username }), { abortSignal }),
      ).then(() => undefined),

    /** The user's groups (all of them: a member is in few, so the pages are followed). */
    listGroupsForUser: (username: string) =>
      call("AdminListGroupsForUser", async (abortSignal) => {
        const groups: string[] = [];
        let NextToken: string | undefined;
        do {
          const output = await client.send(
            new AdminListGroupsForUserCommand({ UserPoolId, Username: username, Limit: 60, NextToken }),
            { abortSignal },
          );
          groups.push(...(output.Groups ?? []).flatMap((group) => (group.GroupName ? [group.GroupName] : [])));
          NextToken = output.NextToken;
        } while (NextToken);
        return groups;
      }),

    /** One page of every user in the pool; pass the previous page's token for the next. */
    listUsers: (input: { paginationToken?: string; limit?: number } = {}) =>
      call("ListUsers", async (abortSignal): Promise<IdentityUserPage> => {
        const output = await client.send(
          new ListUsersCommand({ UserPoolId, Limit: input.limit ?? 60, PaginationToken: input.paginationToken }),
          { abortSignal },
        );
        return { users: (output.Users ?? []).map(fromUserType), paginationToken: output.PaginationToken };
      }),

    /** One page of the pool's group names (the reconcile job reads memberships group by group). */
    listGroups: (input: { nextToken?: string } = {}) =>
      call("ListGroups", async (abortSignal) => {
        const output = await client.send(new ListGroupsCommand({ UserPoolId, Limit: 60, NextToken: input.nextToken }), {
          abortSignal,
        });
        const groups = (output.Groups ?? []).flatMap((group) => (group.GroupName ? [group.GroupName] : []));
        return { groups, nextToken: output.NextToken };
      }),

    /** One page of a group's members, by sub. */
    listUsersInGroup: (input: { groupName: string; nextToken?: string }) =>
      call("ListUsersInGroup", async (abortSignal) => {
        const output = await client.send(
          new ListUsersInGroupCommand({
            UserPoolId,
            GroupName: input.groupName,
            Limit: 60,
            NextToken: input.nextToken,
          }),
          { abortSignal },
        );
        return { subs: (output.Users ?? []).map((user) => fromUserType(user).sub), nextToken: output.NextToken };
      }),

    poolSummary: () =>
      call("DescribeUserPool", async (abortSignal): Promise<PoolSummary> => {
        const output = await client.send(new DescribeUserPoolCommand({ UserPoolId }), { abortSignal });
        const pool = output.UserPool;
        const policy = pool?.Policies?.PasswordPolicy;
        return {
          id: pool?.Id ?? UserPoolId,
          name: pool?.Name ?? "",
          estimatedUsers: pool?.EstimatedNumberOfUsers ?? 0,
          passwordPolicy: {
            minimumLength: policy?.MinimumLength ?? 8,
            requireUppercase: policy?.RequireUppercase ?? false,
            requireLowercase: policy?.RequireLowercase ?? false,
            requireNumbers: policy?.RequireNumbers ?? false,
            requireSymbols: policy?.RequireSymbols ?? false,
            temporaryPasswordValidityDays: policy?.TemporaryPasswordValidityDays ?? 7,
          },
        };
      }),

    /**
     * The pool's and app client's settings and whether the admin group exists, for the start-up check against the
     * deployment contract (pool-contract.server.ts). Not a member's flow: errors come out as the SDK's, unmapped.
     */
    async describePool(adminGroup: string): Promise<DescribedPool> {
      const options = { abortSignal: AbortSignal.timeout(COGNITO_CALL_DEADLINE_MS) };
      const [pool, appClient, adminGroupExists] = await Promise.all([
        client.send(new DescribeUserPoolCommand({ UserPoolId }), options),
        client.send(new DescribeUserPoolClientCommand({ UserPoolId, ClientId }), options),
        client.send(new GetGroupCommand({ UserPoolId, GroupName: adminGroup }), options).then(
          () => true,
          (error: unknown) => {
            if (error instanceof Error && error.name === "ResourceNotFoundException") return false;
            throw error;
          },
        ),
      ]);
      if (!pool.UserPool || !appClient.UserPoolClient) throw new Error("Cognito described no user pool or app client");
      return { pool: pool.UserPool, client: appClient.UserPoolClient, adminGroupExists };
    },
  };
}

export type IdentityProvider = ReturnType<typeof createIdentityProvider>;
