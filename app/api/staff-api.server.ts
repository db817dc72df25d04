import { z } from "zod";
import { type StaffActionActor, findStaffActor } from "~/domain/staff/staff-actions.server";
import { type ApiCall, limitAttempts } from "./api-handler.server";
import { ApiError } from "./api-response.server";
import type { ApiOperationId } from "./contract";

const SubSchema = z.uuid();

/** The `{sub}` of an admin endpoint's path: a malformed one is 422 (an unknown one is the domain's 404). */
export function memberSubOf(params: Readonly<Record<string, string | undefined>>): string {
  const sub = params.sub ?? "";
  if (!SubSchema.safeParse(sub).success) {
    throw new ApiError("validation_failed", { fields: { sub: ["validation.inputError"] } });
  }
  return sub;
}

/** The `{id}` of a CSV import job's path: a malformed one is 422, like a malformed sub. */
export function importJobIdOf(params: Readonly<Record<string, string | undefined>>): string {
  const id = params.id ?? "";
  if (!SubSchema.safeParse(id).success) {
    throw new ApiError("validation_failed", { fields: { id: ["validation.inputError"] } });
  }
  return id;
}

/**
 * The admin behind the bearer token, as the audit log records them (with this request's id), once their attempt
 * has been counted against the staff rate limit (per admin and per client IP, as the admin pages count it).
 */
export async function staffActorOf<Id extends ApiOperationId>(call: ApiCall<Id>): Promise<StaffActionActor> {
  await limitAttempts(call, "staffAction");
  return { ...(await findStaffActor(call, call.member.sub)), requestId: call.requestId };
}

/** A value as JSON carries it: every Date an ISO 8601 string (what the contract's timestamps describe). */
export type AsJson<T> = T extends Date
  ? string
  : T extends readonly (infer Item)[]
    ? AsJson<Item>[]
    : T extends object
      ? { [Key in keyof T]: AsJson<T[Key]> }
      : T;

/** The admin endpoints answer the domain's records, which hold Dates; JSON turns them into ISO strings. */
export function asJson<T>(value: T): AsJson<T> {
  return JSON.parse(JSON.stringify(value)) as AsJson<T>;
}
