import type { AttributeType, CognitoIdentityProviderClient } from "@aws-sdk/client-cognito-identity-provider";
import { type CognitoOperation, toIdentityError } from "./cognito-errors.server";

/** The whole call, retries included, must finish within this; past it the member hears "temporarily unavailable". */
export const COGNITO_CALL_DEADLINE_MS = 8_000;

/** A Cognito client and the pool and app client every call names. */
export interface CognitoPool {
  client: CognitoIdentityProviderClient;
  UserPoolId: string;
  ClientId: string;
}

/** One call within the deadline (on top of the SDK's per-attempt time-out), any failure as an IdentityError. */
export async function callCognito<T>(
  operation: CognitoOperation,
  run: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T> {
  try {
    return await run(AbortSignal.timeout(COGNITO_CALL_DEADLINE_MS));
  } catch (error) {
    throw toIdentityError(error, operation);
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
