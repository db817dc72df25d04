import type { AttributeType, CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { timeCognitoCall } from "~/integrations/metrics.server";
import { type CognitoOperation, toIdentityError } from "./cognito-errors.server";

/** The whole call, retries included, must finish within this; past it the member hears "temporarily unavailable". */
export const COGNITO_CALL_DEADLINE_MS = 8_000;

/** A Cognito client and the pool and app client every call names. */
export interface CognitoPool {
  client: CognitoIdentityProviderClient;
  UserPoolId: string;
  ClientId: string;
}

/**
 * One call within the deadline (on top of the SDK's per-attempt time-out), any failure as an IdentityError. Timed
 * for the metrics by operation and outcome: "success" or the IdentityError's code, a bounded set.
 */
export async function callCognito<T>(
  operation: CognitoOperation,
  run: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  const done = timeCognitoCall(operation);
  try {
    const result = await run(AbortSignal.timeout(COGNITO_CALL_DEADLINE_MS));
    done("success");
    return result;
  } catch (error) {
    const identityError = toIdentityError(error, operation);
    done(identityError.code);
    throw identityError;
  }
}

/** The user attributes the app writes. */
export type UserAttributes = Partial<
  Record<"email" | "email_verified" | "locale" | "family_name" | "given_name", string>
>;

export function toAttributeList(attributes: UserAttributes): AttributeType[] {
  return Object.entries(attributes)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .map(([Name, Value]) => ({ Name, Value }));
}
