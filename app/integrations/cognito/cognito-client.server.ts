import { CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import type { Config } from "~/config.server";

/** Per-call ceiling: a Cognito call slower than this is treated as Cognito being unavailable. */
export const COGNITO_CALL_TIMEOUT_MS = 5_000;
/** The SDK's own retry budget for throttling and transient faults (the first try included). */
export const COGNITO_MAX_ATTEMPTS = 2;

/**
 * The one way this app builds a Cognito client. In production the credentials come from the SDK's default
 * chain (environment, instance role); against the stand-in (an explicit loopback endpoint) any static pair works.
 * `maxAttempts: 1` is for a caller that retries by itself under a shared rate limit (the CSV import): the SDK's
 * own retry would be a call that the limit never counted.
 */
export function createCognitoClient(
  cognito: Config["cognito"],
  options: { maxAttempts?: number } = {},
): CognitoIdentityProviderClient {
  return new CognitoIdentityProviderClient({
    region: cognito.region,
    endpoint: cognito.endpoint,
    maxAttempts: options.maxAttempts ?? COGNITO_MAX_ATTEMPTS,
    // Without throwOnRequestTimeout this SDK release only logs a warning when requestTimeout passes.
    requestHandler: {
      requestTimeout: COGNITO_CALL_TIMEOUT_MS,
      connectionTimeout: COGNITO_CALL_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    ...(cognito.endpoint ? { credentials: { accessKeyId: "stand-in", secretAccessKey: "stand-in" } } : {}),
  });
}
