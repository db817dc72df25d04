import {
  AdminCreateUserCommand,
  AdminDeleteSoftwareTokenCommand,
  AdminDeleteUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminSetUserMFAPreferenceCommand,
  AdminSetUserPasswordCommand,
  AdminUpdateUserAttributesCommand,
  type AttributeType,
  type CognitoIdentityProviderClient,
  DescribeUserPoolClientCommand,
  DescribeUserPoolCommand,
  GetGroupCommand,
  GetUserPoolMfaConfigCommand,
  ListGroupsCommand,
  ListUsersCommand,
  ListUsersInGroupCommand,
  type UserType,
} from "@aws-sdk/client-cognito-identity-provider";
import type { Config } from "~/config.server";
import { IdentityError } from "./cognito-errors.server";
import { createCognitoClient } from "./cognito-client.server";
import {
  COGNITO_CALL_DEADLINE_MS,
  type UserAttributes,
  callCognito as call,
  toAttributeList,
} from "./cognito-calls.server";
import { type PasswordSignIn, memberFlows, toServerToken } from "./member-flows.server";
import { passkeyFlows } from "./passkey-flows.server";
import type { DescribedPool } from "./pool-contract.server";

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
  /** AdminGetUser's UserMFASettingList (SOFTWARE_TOKEN_MFA when the authenticator is on); ListUsers tells none. */
  mfaMethods: string[];
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

function toIdentityUser(input: {
  attributes: AttributeType[] | undefined;
  enabled: boolean | undefined;
  status: string | undefined;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
  mfaMethods?: string[] | undefined;
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
    mfaMethods: input.mfaMethods ?? [],
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

/**
 * Every Cognito call the app makes, server-side, through the AWS SDK: a member's own flows (member-flows.server.ts),
 * then the calls on users and the pool that staff, jobs and the member directory make. Each call has a deadline on
 * top of the SDK's own per-attempt time-out and bounded retries (cognito-calls.server.ts, cognito-client.server.ts);
 * every failure comes out as an IdentityError from the one error table. The stand-in is reached through exactly this
 * code.
 */
export function createIdentityProvider(
  cognito: Config["cognito"],
  client: CognitoIdentityProviderClient = createCognitoClient(cognito),
) {
  const { userPoolId: UserPoolId, clientId: ClientId } = cognito;

  const getUser = (username: string) =>
    call("AdminGetUser", async (abortSignal): Promise<IdentityUser> => {
      const output = await client.send(new AdminGetUserCommand({ UserPoolId, Username: username }), { abortSignal });
      return toIdentityUser({
        attributes: output.UserAttributes,
        enabled: output.Enabled,
        status: output.UserStatus,
        createdAt: output.UserCreateDate,
        updatedAt: output.UserLastModifiedDate,
        mfaMethods: output.UserMFASettingList,
      });
    });

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

  const leaves = { tokensLeaveServer: true };
  const staffPool = { client, UserPoolId, ClientId: cognito.staffClientId ?? "" };
  const staffMemberFlows = memberFlows(staffPool, leaves);
  const staffPasskeyFlows = passkeyFlows(staffPool, leaves);
  const serverFlows = memberFlows(
    { client, UserPoolId, ClientId: cognito.serverClientId ?? "" },
    { tokensLeaveServer: false },
  );
  /** The server-only client's answer, its tokens as a ServerToken (Cognito refuses every call without the setting). */
  const asServerSignIn = (answer: PasswordSignIn) =>
    answer.kind === "tokens" ? { kind: "serverToken" as const, token: toServerToken(answer.tokens) } : answer;

  return {
    ...memberFlows({ client, UserPoolId, ClientId }, leaves),
    ...passkeyFlows({ client, UserPoolId, ClientId }, leaves),

    /**
     * A password sign-in through the server-only app client (COGNITO_SERVER_CLIENT_ID): the ServerToken that the
     * self-service calls take, or Cognito's code challenge for a member with 2-step verification (answered with
     * `serverAnswerSoftwareTokenChallenge`). Its refresh token is dropped here: nothing renews a server token.
     */
    serverSignIn: async (input: { email: string; password: string }) =>
      asServerSignIn(await serverFlows.beginSignIn(input)),
    serverAnswerSoftwareTokenChallenge: async (input: { username: string; session: string; code: string }) =>
      toServerToken(await serverFlows.answerSoftwareTokenChallenge(input)),

    /**
     * The staff area's sign-in, through the staff app client (COGNITO_STAFF_CLIENT_ID): its tokens are the only ones
     * a staff session holds. Without the setting (tools and tests naming only the member client) Cognito refuses.
     */
    staffBeginSignIn: staffMemberFlows.beginSignIn,
    staffAnswerSoftwareTokenChallenge: staffMemberFlows.answerSoftwareTokenChallenge,
    staffRefresh: staffMemberFlows.refresh,
    /**
     * Without the setting this fails as a fault, not as Cognito's refusal: a refusal would count the token as revoked
     * (revokeWithRetries), and it is still owed.
     */
    staffRevokeRefreshToken: (refreshToken: string) =>
      cognito.staffClientId
        ? staffMemberFlows.revokeRefreshToken(refreshToken)
        : Promise.reject(new Error("COGNITO_STAFF_CLIENT_ID is not set: no staff refresh token can be revoked")),
    /** The passkey as the staff sign-in's second factor: USER_AUTH's WEB_AUTHN challenge on the staff client. */
    staffBeginPasskeySignIn: staffPasskeyFlows.beginPasskeySignIn,
    staffAnswerPasskeyChallenge: staffPasskeyFlows.answerPasskeyChallenge,

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

    /**
     * Turns a user's authenticator on (and preferred) or off as their second factor, by name: staff turning off a
     * member's 2-step verification, and a recovery code's sign-in (app/domain/security/recovery-codes.server.ts).
     */
    setSoftwareTokenPreferenceOf: (input: { username: string; enabled: boolean }) =>
      call("AdminSetUserMFAPreference", (abortSignal) =>
        client.send(
          new AdminSetUserMFAPreferenceCommand({
            UserPoolId,
            Username: input.username,
            SoftwareTokenMfaSettings: { Enabled: input.enabled, PreferredMfa: input.enabled },
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    /** Forgets a user's authenticator secret: a new one must be set up from the start (lost phone, turned off). */
    deleteSoftwareToken: (username: string) =>
      call("AdminDeleteSoftwareToken", (abortSignal) =>
        client.send(new AdminDeleteSoftwareTokenCommand({ UserPoolId, Username: username }), { abortSignal }),
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

    /** One page of a group's members: their subs, and the users as ListUsers shows them. */
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
        const users = (output.Users ?? []).map(fromUserType);
        return { subs: users.map((user) => user.sub), users, nextToken: output.NextToken };
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
     * The pool's and both app clients' settings and whether the admin group exists, for the start-up check against the
     * deployment contract (pool-contract.server.ts). Not a member's flow: errors come out as the SDK's, unmapped.
     */
    async describePool(adminGroup: string): Promise<DescribedPool> {
      const options = { abortSignal: AbortSignal.timeout(COGNITO_CALL_DEADLINE_MS) };
      if (!cognito.staffClientId)
        throw new Error("COGNITO_STAFF_CLIENT_ID is not set: the staff app client is unknown");
      if (!cognito.serverClientId) {
        throw new Error("COGNITO_SERVER_CLIENT_ID is not set: the server-only app client is unknown");
      }
      const [pool, appClient, staffClient, serverClient, mfa, adminGroupExists] = await Promise.all([
        client.send(new DescribeUserPoolCommand({ UserPoolId }), options),
        client.send(new DescribeUserPoolClientCommand({ UserPoolId, ClientId }), options),
        client.send(new DescribeUserPoolClientCommand({ UserPoolId, ClientId: cognito.staffClientId }), options),
        client.send(new DescribeUserPoolClientCommand({ UserPoolId, ClientId: cognito.serverClientId }), options),
        client.send(new GetUserPoolMfaConfigCommand({ UserPoolId }), options),
        client.send(new GetGroupCommand({ UserPoolId, GroupName: adminGroup }), options).then(
          () => true,
          (error: unknown) => {
            if (error instanceof Error && error.name === "ResourceNotFoundException") return false;
            throw error;
          },
        ),
      ]);
      if (!pool.UserPool || !appClient.UserPoolClient || !staffClient.UserPoolClient || !serverClient.UserPoolClient) {
        throw new Error("Cognito described no user pool or app client");
      }
      return {
        pool: pool.UserPool,
        client: appClient.UserPoolClient,
        staffClient: staffClient.UserPoolClient,
        serverClient: serverClient.UserPoolClient,
        softwareTokenMfa: mfa.SoftwareTokenMfaConfiguration?.Enabled === true,
        ...(mfa.WebAuthnConfiguration ? { webAuthn: mfa.WebAuthnConfiguration } : {}),
        adminGroupExists,
      };
    },
  };
}

export type IdentityProvider = ReturnType<typeof createIdentityProvider>;
