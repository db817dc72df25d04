import type {
  PasswordPolicyType,
  UserPoolClientType,
  UserPoolType,
  WebAuthnConfigurationType,
} from "@aws-sdk/client-cognito-identity-provider";

/**
 * The deployment contract: the Cognito user pool and app client settings this app's code depends on. Production checks
 * them at start-up and refuses to run when one differs, rather than fail later in front of a member; the stand-in is
 * provisioned from the same values. docs/deployment.md ("The Cognito deployment contract") explains each one.
 */

/**
 * The pool and client as DescribeUserPool and DescribeUserPoolClient report them, the pool's authenticator-app and
 * passkey settings as GetUserPoolMfaConfig reports them, and whether the admin group exists.
 */
export interface DescribedPool {
  pool: UserPoolType;
  client: UserPoolClientType;
  /** The staff area's app client (COGNITO_STAFF_CLIENT_ID). */
  staffClient: UserPoolClientType;
  /** The server-only app client (COGNITO_SERVER_CLIENT_ID), whose tokens keep the self-service scope. */
  serverClient: UserPoolClientType;
  /** SoftwareTokenMfaConfiguration.Enabled: members may use an authenticator app. */
  softwareTokenMfa: boolean;
  webAuthn?: WebAuthnConfigurationType;
  adminGroupExists: boolean;
}

export interface PoolExpectations {
  /** The app's own rule for new passwords (app/domain/forms/field-schemas.ts). */
  minimumPasswordLength: number;
  adminGroup: string;
  /** APP_ORIGIN: passkeys are made for its host name, the relying party. */
  appOrigin: string;
}

/**
 * The flows the app calls: AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH (sign-in), REFRESH_TOKEN_AUTH, and
 * USER_AUTH (passkey sign-in).
 */
export const REQUIRED_AUTH_FLOWS = [
  "ALLOW_ADMIN_USER_PASSWORD_AUTH",
  "ALLOW_REFRESH_TOKEN_AUTH",
  "ALLOW_USER_AUTH",
] as const;

/** Passkeys need the Essentials or Plus feature plan. */
export const PASSKEY_FEATURE_PLANS = ["ESSENTIALS", "PLUS"] as const;

/** USER_AUTH may start with a password or a passkey (Policies.SignInPolicy, as CreateUserPool takes it). */
export const REQUIRED_FIRST_AUTH_FACTORS = ["PASSWORD", "WEB_AUTHN"] as const;

/**
 * The pool's passkey settings, as SetUserPoolMfaConfig takes them: passkeys are made for APP_ORIGIN's host, and the
 * authenticator must verify the member (biometrics or PIN), because a passkey sign-in stands for both factors.
 */
export function requiredWebAuthnConfiguration(
  appOrigin: string,
): Required<Pick<WebAuthnConfigurationType, "RelyingPartyId" | "UserVerification">> {
  return { RelyingPartyId: new URL(appOrigin).hostname, UserVerification: "required" };
}

/** The policy the pool must have: the app's length rule and no character-class rules the forms do not ask for. */
export function requiredPasswordPolicy(
  minimumPasswordLength: number,
): Required<
  Pick<
    PasswordPolicyType,
    "MinimumLength" | "RequireLowercase" | "RequireUppercase" | "RequireNumbers" | "RequireSymbols"
  >
> {
  return {
    MinimumLength: minimumPasswordLength,
    RequireLowercase: false,
    RequireUppercase: false,
    RequireNumbers: false,
    RequireSymbols: false,
  };
}

/** The client settings the app needs, as CreateUserPoolClient / UpdateUserPoolClient take them. */
export const REQUIRED_CLIENT_SETTINGS = {
  ExplicitAuthFlows: [...REQUIRED_AUTH_FLOWS],
  // Sign-out and device deactivation revoke refresh tokens (RevokeToken).
  EnableTokenRevocation: true,
  // The legacy-account migration starts from AdminInitiateAuth's UserNotFoundException; ENABLED hides it.
  PreventUserExistenceErrors: "LEGACY",
  // Sessions keep the refresh token of their sign-in; with rotation on, REFRESH_TOKEN_AUTH is refused.
  RefreshTokenRotation: { Feature: "DISABLED" },
} satisfies Partial<UserPoolClientType>;

/**
 * The staff client's settings beyond the member client's flows: staff power must not outlive a removal from the
 * staff group or a stolen token for long, so its access tokens last Cognito's minimum (5 minutes) and its sign-ins
 * at most a staff session's 8 hours; and the staff sign-in does not tell which addresses have accounts (it has no
 * legacy migration to start from UserNotFoundException).
 */
export const REQUIRED_STAFF_CLIENT_SETTINGS = {
  ExplicitAuthFlows: [...REQUIRED_AUTH_FLOWS],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "ENABLED",
  RefreshTokenRotation: { Feature: "DISABLED" },
  AccessTokenValidity: 5,
  IdTokenValidity: 5,
  RefreshTokenValidity: 8,
  TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "hours" },
} satisfies Partial<UserPoolClientType>;

/**
 * The server-only client: its tokens keep Cognito's self-service scope (the pre token generation trigger suppresses
 * it for every other client), so it must be reachable with the app's AWS credentials alone. Its only sign-in is
 * AdminInitiateAuth with a password (IAM-authorized); no public flow (USER_PASSWORD_AUTH, SRP, USER_AUTH, custom
 * auth) and no OAuth, or anyone holding a member's password could mint a token that changes credentials at Cognito
 * around our pages. Its access tokens outlive the re-authentication step by no more than its 10 minutes; its refresh
 * tokens are never kept, and last Cognito's minimum of an hour.
 */
export const REQUIRED_SERVER_CLIENT_SETTINGS = {
  ExplicitAuthFlows: ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"],
  EnableTokenRevocation: true,
  PreventUserExistenceErrors: "ENABLED",
  RefreshTokenRotation: { Feature: "DISABLED" },
  AccessTokenValidity: 10,
  IdTokenValidity: 10,
  RefreshTokenValidity: 60,
  TokenValidityUnits: { AccessToken: "minutes", IdToken: "minutes", RefreshToken: "minutes" },
} satisfies Partial<UserPoolClientType>;

/** The pre token generation trigger versions that can customize access tokens (V1_0 reaches the ID token only). */
export const ACCESS_TOKEN_TRIGGER_VERSIONS = ["V2_0", "V3_0"] as const;

/** A client's token lifetime in seconds, as DescribeUserPoolClient reports its validity and unit. */
function lifetimeSeconds(validity: number | undefined, unit: string | undefined, defaultSeconds: number): number {
  if (validity === undefined) return defaultSeconds;
  const perUnit: Record<string, number> = { seconds: 1, minutes: 60, hours: 3_600, days: 86_400 };
  return validity * (perUnit[unit ?? ""] ?? perUnit.hours!);
}

/**
 * A client's token lifetimes against their most, one line each too long: access and ID tokens (Cognito's default an
 * hour) at most `access`, refresh tokens (Cognito's default 30 days) at most `refresh`, in seconds with their words.
 */
function lifetimeProblems(
  name: string,
  client: UserPoolClientType,
  most: { access: [number, string]; refresh: [number, string]; why: string },
): string[] {
  const units = client.TokenValidityUnits;
  const limits = [
    ["AccessTokenValidity", client.AccessTokenValidity, units?.AccessToken, 3_600, most.access],
    ["IdTokenValidity", client.IdTokenValidity, units?.IdToken, 3_600, most.access],
    ["RefreshTokenValidity", client.RefreshTokenValidity, units?.RefreshToken ?? "days", 30 * 86_400, most.refresh],
  ] as const;
  return limits.flatMap(([setting, validity, unit, defaultSeconds, [maxSeconds, words]]) =>
    lifetimeSeconds(validity, unit, defaultSeconds) > maxSeconds
      ? [
          `${name}: ${setting} is ${validity === undefined ? "Cognito's default" : `${validity} ${unit ?? "hours"}`}, ` +
            `must be at most ${words} (${most.why})`,
        ]
      : [],
  );
}

/** Every way the staff client differs from REQUIRED_STAFF_CLIENT_SETTINGS, one line each. */
function staffClientProblems(staffClient: UserPoolClientType, memberClientId: string | undefined): string[] {
  const problems: string[] = [];
  const name = `staff app client ${staffClient.ClientId ?? "?"}`;
  const required = REQUIRED_STAFF_CLIENT_SETTINGS;
  if (staffClient.ClientId !== undefined && staffClient.ClientId === memberClientId) {
    problems.push(`${name}: is the members' app client, must be a client of its own (COGNITO_STAFF_CLIENT_ID)`);
  }
  if (staffClient.ClientSecret) problems.push(`${name}: has a client secret, must have none`);
  for (const flow of required.ExplicitAuthFlows) {
    if (!staffClient.ExplicitAuthFlows?.includes(flow)) {
      problems.push(`${name}: ExplicitAuthFlows is ${show(staffClient.ExplicitAuthFlows)}, must include "${flow}"`);
    }
  }
  if (staffClient.EnableTokenRevocation !== true) {
    problems.push(`${name}: EnableTokenRevocation is ${show(staffClient.EnableTokenRevocation)}, must be true`);
  }
  if (staffClient.PreventUserExistenceErrors !== required.PreventUserExistenceErrors) {
    problems.push(
      `${name}: PreventUserExistenceErrors is ${show(staffClient.PreventUserExistenceErrors)}, must be "ENABLED" ` +
        "(the staff sign-in does not tell which addresses have accounts)",
    );
  }
  if (staffClient.RefreshTokenRotation?.Feature === "ENABLED") {
    problems.push(`${name}: RefreshTokenRotation.Feature is "ENABLED", must be "DISABLED"`);
  }
  problems.push(
    ...lifetimeProblems(name, staffClient, {
      access: [5 * 60, "5 minutes"],
      refresh: [8 * 3_600, "8 hours"],
      why: "staff rights end soon after a removal from the staff group; a staff session lasts at most 8 hours",
    }),
  );
  return problems;
}

/** Every way the server-only client differs from REQUIRED_SERVER_CLIENT_SETTINGS, one line each. */
function serverClientProblems(serverClient: UserPoolClientType, otherClientIds: (string | undefined)[]): string[] {
  const problems: string[] = [];
  const name = `server-only app client ${serverClient.ClientId ?? "?"}`;
  const required = REQUIRED_SERVER_CLIENT_SETTINGS;
  if (serverClient.ClientId !== undefined && otherClientIds.includes(serverClient.ClientId)) {
    problems.push(
      `${name}: is the members' or the staff app client, must be a client of its own (COGNITO_SERVER_CLIENT_ID)`,
    );
  }
  if (serverClient.ClientSecret) problems.push(`${name}: has a client secret, must have none`);
  const flows = serverClient.ExplicitAuthFlows ?? [];
  const allowed: readonly string[] = required.ExplicitAuthFlows;
  if (!flows.includes("ALLOW_ADMIN_USER_PASSWORD_AUTH") || flows.some((flow) => !allowed.includes(flow))) {
    problems.push(
      `${name}: ExplicitAuthFlows is ${show(serverClient.ExplicitAuthFlows)}, must be ${show(required.ExplicitAuthFlows)} ` +
        "(its tokens can change credentials at Cognito: only the app's AWS credentials may sign in through it)",
    );
  }
  if (serverClient.AllowedOAuthFlowsUserPoolClient === true || (serverClient.AllowedOAuthFlows ?? []).length > 0) {
    problems.push(`${name}: allows OAuth flows, must allow none (its tokens never leave the server)`);
  }
  if (serverClient.PreventUserExistenceErrors !== required.PreventUserExistenceErrors) {
    problems.push(
      `${name}: PreventUserExistenceErrors is ${show(serverClient.PreventUserExistenceErrors)}, must be "ENABLED"`,
    );
  }
  problems.push(
    ...lifetimeProblems(name, serverClient, {
      access: [10 * 60, "10 minutes"],
      refresh: [60 * 60, "60 minutes"],
      why: "a token that can change credentials lives no longer than the re-authentication it follows",
    }),
  );
  return problems;
}

const show = (value: unknown) => (value === undefined ? "unset" : JSON.stringify(value));

/**
 * Every way the described pool differs from what the app needs, one line each (naming the setting, its value and
 * what it must be); empty when the pool fits.
 */
export function poolContractProblems(described: DescribedPool, expected: PoolExpectations): string[] {
  const { pool, client } = described;
  const problems: string[] = [];
  const poolName = `user pool ${pool.Id ?? "?"}`;
  const clientName = `app client ${client.ClientId ?? "?"}`;

  if (!pool.UsernameAttributes?.includes("email")) {
    problems.push(
      `${poolName}: UsernameAttributes is ${show(pool.UsernameAttributes)}, must include "email" ` +
        "(members sign up and sign in with their e-mail address as the username)",
    );
  }
  if (!pool.AutoVerifiedAttributes?.includes("email")) {
    problems.push(
      `${poolName}: AutoVerifiedAttributes is ${show(pool.AutoVerifiedAttributes)}, must include "email" ` +
        "(sign-up and password-reset codes go to the e-mail address)",
    );
  }
  const policy = pool.Policies?.PasswordPolicy ?? {};
  for (const [setting, value] of Object.entries(requiredPasswordPolicy(expected.minimumPasswordLength))) {
    const actual = policy[setting as keyof PasswordPolicyType];
    if (actual !== value) {
      problems.push(
        `${poolName}: PasswordPolicy.${setting} is ${show(actual)}, must be ${show(value)} ` +
          "(the app's password rule; otherwise Cognito refuses passwords the forms accept, or the reverse)",
      );
    }
  }
  if (pool.AdminCreateUserConfig?.AllowAdminCreateUserOnly === true) {
    problems.push(
      `${poolName}: AdminCreateUserConfig.AllowAdminCreateUserOnly is true, must be false ` +
        "(members sign themselves up with SignUp)",
    );
  }
  if (pool.MfaConfiguration !== "OPTIONAL") {
    problems.push(
      `${poolName}: MfaConfiguration is ${show(pool.MfaConfiguration)}, must be "OPTIONAL" ` +
        "(members turn 2-step verification on themselves; the app walks nobody through Cognito's MFA set-up at sign-in)",
    );
  }
  if (!described.softwareTokenMfa) {
    problems.push(
      `${poolName}: SoftwareTokenMfaConfiguration.Enabled is not true (SetUserPoolMfaConfig), must be true ` +
        "(2-step verification uses an authenticator app)",
    );
  }
  const trigger = pool.LambdaConfig?.PreTokenGenerationConfig;
  if (
    !trigger?.LambdaArn ||
    !(ACCESS_TOKEN_TRIGGER_VERSIONS as readonly string[]).includes(trigger.LambdaVersion ?? "")
  ) {
    problems.push(
      `${poolName}: LambdaConfig.PreTokenGenerationConfig is ${show(trigger)}, must name the app's trigger with ` +
        'LambdaVersion "V2_0" (build/http-server/pre-token-generation.js, SERVER_CLIENT_IDS = COGNITO_SERVER_CLIENT_ID): ' +
        "without it every member's and sibling's access token can change credentials at Cognito",
    );
  }
  if (!pool.LambdaConfig?.CustomMessage) {
    problems.push(
      `${poolName}: LambdaConfig.CustomMessage is unset, must name the app's custom message trigger ` +
        "(build/http-server/custom-message.js): without it the sign-up and password-reset codes go out in " +
        "Cognito's English default text, whatever the member's language",
    );
  }
  // DescribeUserPool names no plan only for pools older than the plans, which are Essentials.
  const plan = pool.UserPoolTier ?? "ESSENTIALS";
  if (!(PASSKEY_FEATURE_PLANS as readonly string[]).includes(plan)) {
    problems.push(
      `${poolName}: UserPoolTier is ${show(plan)}, must be "ESSENTIALS" or "PLUS" (passkeys and access token customization need one of these plans)`,
    );
  }
  const firstFactors = pool.Policies?.SignInPolicy?.AllowedFirstAuthFactors;
  for (const factor of REQUIRED_FIRST_AUTH_FACTORS) {
    if (!firstFactors?.includes(factor)) {
      problems.push(
        `${poolName}: Policies.SignInPolicy.AllowedFirstAuthFactors is ${show(firstFactors)}, must include ` +
          `"${factor}" (members sign in with a password or a passkey)`,
      );
    }
  }
  for (const [setting, value] of Object.entries(requiredWebAuthnConfiguration(expected.appOrigin))) {
    const actual = described.webAuthn?.[setting as keyof WebAuthnConfigurationType];
    if (actual !== value) {
      problems.push(
        `${poolName}: WebAuthnConfiguration.${setting} is ${show(actual)}, must be ${show(value)} ` +
          "(passkeys are made for APP_ORIGIN's host name and verify the member)",
      );
    }
  }

  if (client.ClientSecret) {
    problems.push(`${clientName}: has a client secret, must have none (the app sends no SECRET_HASH)`);
  }
  for (const flow of REQUIRED_AUTH_FLOWS) {
    if (!client.ExplicitAuthFlows?.includes(flow)) {
      problems.push(
        `${clientName}: ExplicitAuthFlows is ${show(client.ExplicitAuthFlows)}, must include "${flow}" ` +
          "(sign-in, passkey sign-in and session refresh use AdminInitiateAuth)",
      );
    }
  }
  if (client.EnableTokenRevocation !== true) {
    problems.push(
      `${clientName}: EnableTokenRevocation is ${show(client.EnableTokenRevocation)}, must be true ` +
        "(sign-out and device deactivation revoke refresh tokens)",
    );
  }
  // Cognito reports LEGACY when the client never chose; an explicit ENABLED is what breaks the migration.
  if ((client.PreventUserExistenceErrors ?? "LEGACY") !== "LEGACY") {
    problems.push(
      `${clientName}: PreventUserExistenceErrors is ${show(client.PreventUserExistenceErrors)}, must be "LEGACY" ` +
        "(the legacy-account migration starts when sign-in answers UserNotFoundException)",
    );
  }
  if (client.RefreshTokenRotation?.Feature === "ENABLED") {
    problems.push(
      `${clientName}: RefreshTokenRotation.Feature is "ENABLED", must be "DISABLED" ` +
        "(sessions keep their sign-in's refresh token and renew with REFRESH_TOKEN_AUTH)",
    );
  }

  problems.push(...staffClientProblems(described.staffClient, client.ClientId));
  problems.push(...serverClientProblems(described.serverClient, [client.ClientId, described.staffClient.ClientId]));

  if (!described.adminGroupExists) {
    problems.push(`${poolName}: group ${show(expected.adminGroup)} (ADMIN_GROUP) does not exist (staff pages need it)`);
  }
  return problems;
}

/**
 * The start-up check: reads the pool through the Cognito adapter and lists its problems. A pool that cannot be read
 * is a problem too (production must not run on settings nobody checked), named with the permissions the check needs.
 */
export async function identityPoolProblems(
  identity: { describePool(adminGroup: string): Promise<DescribedPool> },
  expected: PoolExpectations,
): Promise<string[]> {
  let described: DescribedPool;
  try {
    described = await identity.describePool(expected.adminGroup);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return [
      `could not read the user pool's settings (${reason}); the app's AWS role needs cognito-idp:DescribeUserPool, ` +
        "cognito-idp:DescribeUserPoolClient, cognito-idp:GetUserPoolMfaConfig and cognito-idp:GetGroup on the pool",
    ];
  }
  return poolContractProblems(described, expected);
}
