import {
  ChangePasswordCommand,
  type CognitoIdentityProviderClient,
  CompleteWebAuthnRegistrationCommand,
  DeleteUserAttributesCommand,
  DeleteUserCommand,
  DeleteWebAuthnCredentialCommand,
  ForgetDeviceCommand,
  GetUserAttributeVerificationCodeCommand,
  GetUserCommand,
  GlobalSignOutCommand,
  ListWebAuthnCredentialsCommand,
  SetUserMFAPreferenceCommand,
  SetUserSettingsCommand,
  StartWebAuthnRegistrationCommand,
  UpdateDeviceStatusCommand,
  UpdateUserAttributesCommand,
  VerifySoftwareTokenCommand,
  VerifyUserAttributeCommand,
  AssociateSoftwareTokenCommand,
} from "@aws-sdk/client-cognito-identity-provider";

/**
 * Cognito's self-service operations: each one's API reference says "Authorize this action with a signed-in user's
 * access token. It must include the scope aws.cognito.signin.user.admin." (the User Pools API Reference, under each
 * action's AccessToken parameter). The ones that change something come first; GetUser and ListWebAuthnCredentials,
 * which read, last. Each is called with plausible input: a token without the scope must be refused before the input
 * matters.
 */
export const SELF_SERVICE_OPERATIONS: {
  name: string;
  changes: boolean;
  call(cognito: CognitoIdentityProviderClient, AccessToken: string): Promise<unknown>;
}[] = [
  {
    name: "UpdateUserAttributes",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new UpdateUserAttributesCommand({ AccessToken, UserAttributes: [{ Name: "email", Value: "x@example.jp" }] }),
      ),
  },
  {
    name: "VerifyUserAttribute",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(new VerifyUserAttributeCommand({ AccessToken, AttributeName: "email", Code: "123456" })),
  },
  {
    name: "DeleteUserAttributes",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(new DeleteUserAttributesCommand({ AccessToken, UserAttributeNames: ["given_name"] })),
  },
  {
    name: "GetUserAttributeVerificationCode",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(new GetUserAttributeVerificationCodeCommand({ AccessToken, AttributeName: "email" })),
  },
  {
    name: "ChangePassword",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new ChangePasswordCommand({
          AccessToken,
          PreviousPassword: "not-the-password",
          ProposedPassword: "x".repeat(12),
        }),
      ),
  },
  {
    name: "SetUserMFAPreference",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new SetUserMFAPreferenceCommand({
          AccessToken,
          SoftwareTokenMfaSettings: { Enabled: false, PreferredMfa: false },
        }),
      ),
  },
  {
    name: "AssociateSoftwareToken",
    changes: true,
    call: (cognito, AccessToken) => cognito.send(new AssociateSoftwareTokenCommand({ AccessToken })),
  },
  {
    name: "VerifySoftwareToken",
    changes: true,
    call: (cognito, AccessToken) => cognito.send(new VerifySoftwareTokenCommand({ AccessToken, UserCode: "123456" })),
  },
  {
    name: "StartWebAuthnRegistration",
    changes: true,
    call: (cognito, AccessToken) => cognito.send(new StartWebAuthnRegistrationCommand({ AccessToken })),
  },
  {
    name: "CompleteWebAuthnRegistration",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new CompleteWebAuthnRegistrationCommand({
          AccessToken,
          Credential: { id: "AAAA", rawId: "AAAA", type: "public-key", response: {} } as never,
        }),
      ),
  },
  {
    name: "DeleteWebAuthnCredential",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(new DeleteWebAuthnCredentialCommand({ AccessToken, CredentialId: "AAAA" })),
  },
  {
    name: "DeleteUser",
    changes: true,
    call: (cognito, AccessToken) => cognito.send(new DeleteUserCommand({ AccessToken })),
  },
  {
    name: "UpdateDeviceStatus",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new UpdateDeviceStatusCommand({
          AccessToken,
          DeviceKey: "ap-northeast-1_x",
          DeviceRememberedStatus: "remembered",
        }),
      ),
  },
  {
    name: "ForgetDevice",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(new ForgetDeviceCommand({ AccessToken, DeviceKey: "ap-northeast-1_x" })),
  },
  {
    name: "SetUserSettings",
    changes: true,
    call: (cognito, AccessToken) =>
      cognito.send(
        new SetUserSettingsCommand({
          AccessToken,
          MFAOptions: [{ DeliveryMedium: "EMAIL", AttributeName: "email" }],
        }),
      ),
  },
  {
    name: "GlobalSignOut",
    changes: true,
    call: (cognito, AccessToken) => cognito.send(new GlobalSignOutCommand({ AccessToken })),
  },
  {
    name: "GetUser",
    changes: false,
    call: (cognito, AccessToken) => cognito.send(new GetUserCommand({ AccessToken })),
  },
  {
    name: "ListWebAuthnCredentials",
    changes: false,
    call: (cognito, AccessToken) => cognito.send(new ListWebAuthnCredentialsCommand({ AccessToken })),
  },
];

/** Cognito's refusal of an access token that lacks the scope (its text, as re:Post quotes it). */
export const MISSING_SCOPE = { name: "NotAuthorizedException", message: "Access Token does not have required scopes" };

/** How a call ended: the error's name and message, or "accepted". */
export async function outcomeOf(call: Promise<unknown>): Promise<{ name: string; message: string } | "accepted"> {
  try {
    await call;
    return "accepted";
  } catch (error) {
    const { name, message } = error as Error;
    return { name, message };
  }
}
