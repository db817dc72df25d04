import type { PasswordPolicyType, UserPoolClientType, UserPoolType } from "@aws-sdk/client-cognito-identity-provider";

/**
 * The deployment contract: the Cognito user pool and app client settings this app's code depends on. Production checks
 * them at start-up and refuses to run when one differs, rather than fail later in front of a member; the stand-in is
 * provisioned from the same values. docs/deployment.md ("The Cognito deployment contract") explains each one.
 */

/**
 * The pool and client as DescribeUserPool and DescribeUserPoolClient report them, whether the admin group exists, and
 * whether the pool allows TOTP (GetUserPoolMfaConfig's SoftwareTokenMfaConfiguration, which DescribeUserPool omits).
 */
export interface DescribedPool {
  pool: UserPoolType;
  client: UserPoolClientType;
  adminGroupExists: boolean;
  softwareTokenMfaEnabled: boolean;
}

export interface PoolExpectations {
  /** The app's own rule for new passwords (app/domain/forms/field-schemas.ts). */
  minimumPasswordLength: number;
  adminGroup: string;
}

/** The flows the app calls: AdminInitiateAuth with ADMIN_USER_PASSWORD_AUTH (sign-in) and REFRESH_TOKEN_AUTH. */
export const REQUIRED_AUTH_FLOWS = ["ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"] as const;

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
        "(members who turned on 2-step verification are asked for their code; the others are not)",
    );
  }
  if (!described.softwareTokenMfaEnabled) {
    problems.push(
      `${poolName}: SoftwareTokenMfaConfiguration.Enabled is not true, must be true ` +
        "(2-step verification uses an authenticator app: AssociateSoftwareToken, the SOFTWARE_TOKEN_MFA challenge)",
    );
  }

  if (client.ClientSecret) {
    problems.push(`${clientName}: has a client secret, must have none (the app sends no SECRET_HASH)`);
  }
  for (const flow of REQUIRED_AUTH_FLOWS) {
    if (!client.ExplicitAuthFlows?.includes(flow)) {
      problems.push(
        `${clientName}: ExplicitAuthFlows is ${show(client.ExplicitAuthFlows)}, must include "${flow}" ` +
          "(sign-in and session refresh use AdminInitiateAuth)",
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
