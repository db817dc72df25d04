/**
 * The user pool's pre token generation trigger (Lambda, event version V2_0): every access token Cognito issues to an
 * app client other than the server-only one loses the `aws.cognito.signin.user.admin` scope, the scope each of
 * Cognito's self-service operations requires (UpdateUserAttributes, ChangePassword, SetUserMFAPreference,
 * AssociateSoftwareToken, StartWebAuthnRegistration, DeleteUser, …: each one's API reference says "Must include a
 * scope claim for aws.cognito.signin.user.admin"). The tokens a browser, the shared cookie or a sibling service can
 * get from us or straight from the members' client can then change nothing at Cognito: credential changes go through
 * our pages, after our re-authentication step, by the `Admin*` operations or a token of the server-only client
 * (COGNITO_SERVER_CLIENT_ID), which never leaves the server.
 *
 * Deployed as the pool's trigger (docs/deployment.md) from the compiled `build/http-server/pre-token-generation.js`,
 * with the environment variable SERVER_CLIENT_IDS; the Cognito stand-in runs the same function. Every client not
 * named there is suppressed, so a client added later gets no self-service power by accident. Version 1 events carry
 * no access-token customization: the function answers them unchanged, and the start-up check requires V2_0 or V3_0.
 *
 * No imports: Lambda runs this file as it is.
 */

export const SELF_SERVICE_SCOPE = "aws.cognito.signin.user.admin";

/** The part of a V2_0/V3_0 event the function reads (Cognito sends more). */
export interface PreTokenGenerationEvent {
  version: string;
  triggerSource: string;
  callerContext: { clientId: string; awsSdkVersion?: string };
  request: { scopes?: string[]; [key: string]: unknown };
  response: {
    claimsAndScopeOverrideDetails?: {
      accessTokenGeneration?: { scopesToSuppress?: string[]; scopesToAdd?: string[] };
      [key: string]: unknown;
    } | null;
  };
  [key: string]: unknown;
}

/** The event answered: the self-service scope suppressed unless the calling client is one of `serverClientIds`. */
export function suppressSelfServiceScope<Event extends PreTokenGenerationEvent>(
  event: Event,
  serverClientIds: readonly string[],
): Event {
  if (event.version === "1" || serverClientIds.includes(event.callerContext.clientId)) return event;
  return {
    ...event,
    response: {
      ...event.response,
      claimsAndScopeOverrideDetails: {
        ...event.response.claimsAndScopeOverrideDetails,
        accessTokenGeneration: {
          ...event.response.claimsAndScopeOverrideDetails?.accessTokenGeneration,
          scopesToSuppress: [SELF_SERVICE_SCOPE],
        },
      },
    },
  };
}

/** The server-only clients, from the function's environment: comma-separated app client ids. */
export function serverClientIdsFrom(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
}

/** Lambda's entry point. */
export function handler(event: PreTokenGenerationEvent): Promise<PreTokenGenerationEvent> {
  return Promise.resolve(suppressSelfServiceScope(event, serverClientIdsFrom(process.env.SERVER_CLIENT_IDS)));
}
