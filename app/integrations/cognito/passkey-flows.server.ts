import {
  AdminInitiateAuthCommand,
  AdminRespondToAuthChallengeCommand,
  CompleteWebAuthnRegistrationCommand,
  type CompleteWebAuthnRegistrationCommandInput,
  DeleteWebAuthnCredentialCommand,
  ListWebAuthnCredentialsCommand,
  StartWebAuthnRegistrationCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { type CognitoPool, callCognito as call } from "./cognito-calls.server";
import { toIdentityError } from "./cognito-errors.server";
import { type FlowOptions, type IdentityTokens, type ServerToken, toTokens } from "./member-flows.server";

/**
 * What a passkey sign-in's first call answers: Cognito's WEB_AUTHN challenge (the request options for the browser's
 * navigator.credentials.get, and the Session the answer brings back), or, for an address with no passkey (or none
 * Cognito will say), no challenge at all.
 */
export type PasskeyChallenge =
  | {
      kind: "webAuthn";
      /** Cognito's user name (the sub in a pool that signs in by e-mail), which the answer must name. */
      username: string;
      session: string;
      /** PublicKeyCredentialRequestOptionsJSON, as Cognito sends it (a JSON string). */
      requestOptionsJson: string;
    }
  | { kind: "noPasskey" };

/**
 * The passkey calls (Cognito's WebAuthn operations, on the Essentials plan with ALLOW_USER_AUTH on the app client):
 * registering, listing and deleting them with a ServerToken (Cognito has no administrator operation on a user's
 * passkeys), and signing in with USER_AUTH's WEB_AUTHN challenge. Cognito does every WebAuthn check (challenge,
 * origin, relying party, signature); the app only carries the JSON.
 */
export function passkeyFlows({ client, UserPoolId, ClientId }: CognitoPool, options: FlowOptions) {
  return {
    /** PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create; Cognito keeps the challenge. */
    startPasskeyRegistration: (token: ServerToken) =>
      call("StartWebAuthnRegistration", async (abortSignal) => {
        const output = await client.send(new StartWebAuthnRegistrationCommand({ AccessToken: token.accessToken }), {
          abortSignal,
        });
        if (!output.CredentialCreationOptions) {
          throw toIdentityError(new Error("no creation options"), "StartWebAuthnRegistration");
        }
        return output.CredentialCreationOptions as Record<string, unknown>;
      }),

    /** Stores the browser's RegistrationResponseJSON as the member's passkey (Cognito checks the attestation). */
    completePasskeyRegistration: (input: { token: ServerToken; credential: Record<string, unknown> }) =>
      call("CompleteWebAuthnRegistration", (abortSignal) =>
        client.send(
          new CompleteWebAuthnRegistrationCommand({
            AccessToken: input.token.accessToken,
            Credential: input.credential as CompleteWebAuthnRegistrationCommandInput["Credential"],
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    deletePasskey: (input: { token: ServerToken; credentialId: string }) =>
      call("DeleteWebAuthnCredential", (abortSignal) =>
        client.send(
          new DeleteWebAuthnCredentialCommand({
            AccessToken: input.token.accessToken,
            CredentialId: input.credentialId,
          }),
          { abortSignal },
        ),
      ).then(() => undefined),

    /** The ids of every passkey Cognito holds for the token's user (all pages). */
    listPasskeyCredentialIds: (token: ServerToken) =>
      call("ListWebAuthnCredentials", async (abortSignal) => {
        const ids: string[] = [];
        let NextToken: string | undefined;
        do {
          const output = await client.send(
            new ListWebAuthnCredentialsCommand({ AccessToken: token.accessToken, MaxResults: 20, NextToken }),
            { abortSignal },
          );
          ids.push(
            ...(output.Credentials ?? []).flatMap((credential) =>
              credential.CredentialId ? [credential.CredentialId] : [],
            ),
          );
          NextToken = output.NextToken;
        } while (NextToken);
        return ids;
      }),

    /** USER_AUTH with WEB_AUTHN preferred: the challenge for the browser, or none when Cognito offers another. */
    beginPasskeySignIn: (email: string) =>
      call("PasskeySignIn", async (abortSignal): Promise<PasskeyChallenge> => {
        const output = await client.send(
          new AdminInitiateAuthCommand({
            UserPoolId,
            ClientId,
            AuthFlow: "USER_AUTH",
            AuthParameters: { USERNAME: email, PREFERRED_CHALLENGE: "WEB_AUTHN" },
          }),
          { abortSignal },
        );
        const requestOptionsJson = output.ChallengeParameters?.CREDENTIAL_REQUEST_OPTIONS;
        if (output.ChallengeName !== "WEB_AUTHN" || !output.Session || !requestOptionsJson) {
          return { kind: "noPasskey" };
        }
        const username = output.ChallengeParameters?.USERNAME ?? output.ChallengeParameters?.USER_ID_FOR_SRP ?? email;
        return { kind: "webAuthn", username, session: output.Session, requestOptionsJson };
      }),

    /** Answers WEB_AUTHN with the browser's AuthenticationResponseJSON: the tokens of a signed-in member. */
    answerPasskeyChallenge: (input: {
      username: string;
      session: string;
      credentialJson: string;
    }): Promise<IdentityTokens> =>
      call("PasskeyChallengeAnswer", async (abortSignal) => {
        const output = await client.send(
          new AdminRespondToAuthChallengeCommand({
            UserPoolId,
            ClientId,
            ChallengeName: "WEB_AUTHN",
            Session: input.session,
            ChallengeResponses: { USERNAME: input.username, CREDENTIAL: input.credentialJson },
          }),
          { abortSignal },
        );
        return toTokens(output.AuthenticationResult, "PasskeyChallengeAnswer", options);
      }),
  };
}
