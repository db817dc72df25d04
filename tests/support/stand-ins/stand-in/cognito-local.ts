/**
 * The slice of cognito-local 5.3.0's in-process services that the stand-in harness uses, typed by hand (the package
 * ships declarations, but only for its own build layout). Only what the harness reads or writes is declared.
 * Never part of production.
 */

export interface AttributeType {
  Name: string;
  Value?: string;
}

/** The harness's record of a user's verified TOTP authenticator (software-tokens.ts). */
export interface HarnessSoftwareToken {
  /** Base32, as AssociateSoftwareToken handed it out. */
  secret: string;
  friendlyDeviceName?: string;
  /** The time step of the last code accepted: that code and any older one are refused from then on. */
  lastTimeStep?: number;
}

/** A user record as cognito-local keeps it in its StormDB JSON (`<dataDir>/db/<poolId>.json` → Users[Username]). */
export interface LocalUser {
  Username: string;
  Password?: string;
  Attributes: AttributeType[];
  Enabled: boolean;
  UserStatus: string;
  ConfirmationCode?: string;
  RefreshTokens?: string[];
  UserCreateDate: Date;
  UserLastModifiedDate: Date;
  MFAOptions?: unknown;
  /** The MFA methods turned on (SOFTWARE_TOKEN_MFA) and the preferred one, which GetUser and AdminGetUser report. */
  UserMFASettingList?: string[];
  PreferredMfaSetting?: string;
  /** The harness's own field: the user's verified authenticator (software-tokens.ts). */
  HarnessSoftwareToken?: HarnessSoftwareToken;
  /** The harness's own field: the secret AssociateSoftwareToken handed out, until VerifySoftwareToken confirms it. */
  HarnessPendingSoftwareTokenSecret?: string;
  /**
   * The harness's own field: the `origin_jti`s (the jti of the refresh token a sign-in produced) whose access tokens
   * are revoked, by RevokeToken, GlobalSignOut, AdminUserGlobalSignOut or AdminDisableUser.
   */
  HarnessRevokedOrigins?: string[];
  /** The harness's own field: when the current temporary password was issued (AdminCreateUser, or its RESEND). */
  HarnessInvitedAt?: string;
  /** The harness's own field: the user's passkeys (stand-in/passkeys.ts). */
  HarnessPasskeys?: unknown[];
  [key: string]: unknown;
}

export interface LocalGroup {
  GroupName: string;
  Description?: string;
  Precedence?: number;
  RoleArn?: string;
  CreationDate?: Date;
  LastModifiedDate?: Date;
  members?: string[];
}

export interface LocalAppClient {
  ClientId: string;
  ClientName?: string;
  UserPoolId: string;
  ExplicitAuthFlows?: string[];
  PreventUserExistenceErrors?: string;
  EnableTokenRevocation?: boolean;
  AccessTokenValidity?: number;
  IdTokenValidity?: number;
  RefreshTokenValidity?: number;
  TokenValidityUnits?: { AccessToken?: string; IdToken?: string; RefreshToken?: string };
  /** Kept by the harness (cognito-local drops it): recorded and reported, never acted on. */
  RefreshTokenRotation?: { Feature?: string; RetryGracePeriodSeconds?: number };
  /** Minutes a challenge's Session stays valid (Cognito's default 3). */
  AuthSessionValidity?: number;
  [key: string]: unknown;
}

export interface LocalPasswordPolicy {
  MinimumLength?: number;
  RequireUppercase?: boolean;
  RequireLowercase?: boolean;
  RequireNumbers?: boolean;
  RequireSymbols?: boolean;
  TemporaryPasswordValidityDays?: number;
}

export interface LocalUserPoolOptions {
  Id: string;
  Name?: string;
  UsernameAttributes?: string[];
  AutoVerifiedAttributes?: string[];
  Policies?: { PasswordPolicy?: LocalPasswordPolicy };
  MfaConfiguration?: string;
  SoftwareTokenMfaConfiguration?: { Enabled?: boolean };
  AdminCreateUserConfig?: {
    AllowAdminCreateUserOnly?: boolean;
    InviteMessageTemplate?: { EmailSubject?: string; EmailMessage?: string; SMSMessage?: string };
  };
  [key: string]: unknown;
}

export interface Ctx {
  logger: unknown;
}

/** cognito-local's store of one pool (StormDB): a `set` changes the value at once, the file is saved behind it. */
export interface LocalDataStore {
  get<T>(ctx: Ctx, key: string | string[], defaultValue?: T): Promise<T | null>;
  set<T>(ctx: Ctx, key: string | string[], value: T): Promise<void>;
}

export interface LocalUserPool {
  readonly options: LocalUserPoolOptions;
  /** The pool's store, used directly only to seed many users in one write (the harness's bulk seed). */
  readonly dataStore: LocalDataStore;
  getUserByUsername(ctx: Ctx, username: string): Promise<LocalUser | null>;
  getUserByRefreshToken(ctx: Ctx, refreshToken: string): Promise<LocalUser | null>;
  listUsers(ctx: Ctx, filter?: string): Promise<LocalUser[]>;
  saveUser(ctx: Ctx, user: LocalUser): Promise<void>;
  storeRefreshToken(ctx: Ctx, refreshToken: string, user: LocalUser): Promise<void>;
  listGroups(ctx: Ctx): Promise<LocalGroup[]>;
  listUserGroupMembership(ctx: Ctx, user: LocalUser): Promise<string[]>;
  saveAppClient(ctx: Ctx, appClient: LocalAppClient): Promise<void>;
  /** Replaces the pool's settings (the harness keeps the feature plan and WebAuthn settings cognito-local drops). */
  updateOptions(ctx: Ctx, options: LocalUserPoolOptions): Promise<void>;
}

export interface LocalCognitoService {
  getUserPool(ctx: Ctx, userPoolId: string): Promise<LocalUserPool>;
  getUserPoolForClientId(ctx: Ctx, clientId: string): Promise<LocalUserPool>;
  getAppClient(ctx: Ctx, clientId: string): Promise<LocalAppClient | null>;
}

export interface CodeDeliveryDetails {
  AttributeName: string;
  DeliveryMedium: string;
  Destination: string;
}

export interface LocalMessages {
  deliver(
    ctx: Ctx,
    source: string,
    clientId: string | null,
    userPoolId: string,
    user: LocalUser,
    code: string,
    clientMetadata: Record<string, string> | undefined,
    deliveryDetails: CodeDeliveryDetails,
  ): Promise<void>;
}

export interface LocalTokens {
  AccessToken: string;
  IdToken: string;
  RefreshToken: string;
}

export interface LocalTokenGenerator {
  generate(
    ctx: Ctx,
    user: LocalUser,
    userGroups: string[],
    userPoolClient: LocalAppClient,
    clientMetadata: Record<string, string> | undefined,
    source: string,
  ): Promise<LocalTokens>;
}

/** A message as cognito-local's delivery takes it: the code, and the text when a template or trigger made one. */
export interface LocalMessage {
  __code: string;
  emailSubject?: string;
  emailMessage?: string;
}

/** cognito-local's last step of sending: hands the message to the sender (the dev mailbox here). */
export interface LocalMessageDelivery {
  deliver(ctx: Ctx, user: LocalUser, deliveryDetails: CodeDeliveryDetails, message: LocalMessage): Promise<void>;
}

/** What the harness needs of the services object cognito-local's Router is built from. */
export interface LocalServices {
  cognito: LocalCognitoService;
  clock: { get(): Date };
  messages: LocalMessages;
  /** The same delivery `messages` ends in, for the invitations the harness writes from the pool's template. */
  messageDelivery: LocalMessageDelivery;
  tokenGenerator: LocalTokenGenerator;
  otp: () => string;
}

/** cognito-local's own error classes carry the Cognito error name in `code`. */
export function isCognitoLocalError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}
