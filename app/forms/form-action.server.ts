import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { type RouterContextProvider, data } from "react-router";
import type { z } from "zod";
import type { DomainErrorCode } from "~/domain/domain-error.server";
import type { LimitedAttempt } from "~/domain/limits/rate-limit.server";
import { type SignInDoor, isCredentialRefusal } from "~/domain/limits/sign-in-failures.server";
import { domainErrorOf, httpStatusOf, messageKeyOf } from "~/errors/error-responses.server";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { type SignInAllowance, allowSignInAttempt, checkAttemptLimit } from "~/middleware/attempt-limit.server";

/*
 * The action's half of the form kit (the loader's is schema-form.server.ts, the page's
 * app/components/form/use-schema-form.ts): every form post goes parse → 400 → attempt limit → 429 → the domain
 * verb → its error as the form's message, here.
 */

/** What a post that types the member's password counts as (app/domain/limits/sign-in-failures.server.ts). */
export interface SignInLimit {
  door: SignInDoor;
  email: string;
  /** The post's request, whose device-key cookie tells the member's own browser from a stranger's. */
  request: Request;
}

/** Messages to show with a reply: on the form (formErrors) or on fields, as keys of "forms" or namespaced. */
type ReplyErrors = { formErrors?: string[]; fieldErrors?: Record<string, string[]> };

/** The form's reply with the fields it must never send back left out, for an action's own answers (`run`). */
export type FormReply = (errors?: ReplyErrors) => SubmissionResult<string[]>;

export interface FormPost<Schema extends z.ZodType, Extra extends object> {
  schema: Schema;
  /** Joins every reply in the action's data: which form or step of the page answered, and what it shows. */
  extra?: Extra;
  /** Never sent back, whatever the answer: passwords. Pair with the page's `secretFields` (useSchemaForm). */
  hideFields?: string[];
  /**
   * What a valid post counts as, before the domain verb runs (rate-limit.server.ts has the policies); null or
   * absent: not counted.
   */
  attemptLimit?: (value: z.output<Schema>) => LimitedAttempt | null;
  /**
   * For a post that types the member's password: counted per client, and only a refusal (a wrong password) counts
   * per account, in the budget of this browser's standing with the account. Not with `attemptLimit`.
   */
  signInLimit?: (value: z.output<Schema>) => SignInLimit;
  /** Domain errors the member corrects on one field: their message goes there rather than on the form. */
  errorFields?: Partial<Record<DomainErrorCode, string>>;
}

/**
 * The refusals of a new password, each shown on its field (NewPasswordField): the pool's policy, and the strength
 * rule (app/domain/account/password-strength.server.ts).
 */
export function newPasswordErrorFields(field: string): FormPost<z.ZodType, object>["errorFields"] {
  return { invalidPassword: field, passwordTooCommon: field, passwordFromPersonalDetails: field };
}

/** A reply's error messages (keys of "forms", or namespaced: "toasts:…") as texts in `translate`'s language. */
function translateReply(result: SubmissionResult<string[]>, translate: (key: string) => string) {
  if (!result.error) return result;
  const error = Object.fromEntries(
    Object.entries(result.error).map(([name, messages]) => [name, messages?.map((key) => translate(key)) ?? null]),
  );
  return { ...result, error };
}

/**
 * Tells the form kit that `run`'s own answer refuses the password typed (one it did not throw as a DomainError), so
 * that it counts as a refused sign-in.
 */
export interface RefusalMark {
  refused(): void;
}

/**
 * Runs a form post: parses it with the schema (Conform's parseWithZod), answers 400 when it is invalid, counts the
 * attempt and answers 429 at the limit, then `run`s the action with the valid value. A DomainError from `run`
 * becomes the form's message with its status (httpStatusOf); anything else it throws (a redirect, a 404, a fault)
 * passes through. Every reply carries its messages already translated into the request's language, so the page
 * needs none of the error texts in its loader data, which every visitor would download whether or not the form
 * ever fails.
 */
export async function handleFormPost<Schema extends z.ZodType, Outcome, Extra extends object = Record<never, never>>(
  context: Readonly<RouterContextProvider>,
  formData: FormData,
  { schema, extra, hideFields, attemptLimit, signInLimit, errorFields }: FormPost<Schema, Extra>,
  run: (value: z.output<Schema>, reply: FormReply, mark: RefusalMark) => Promise<Outcome>,
) {
  const submission = parseWithZod(formData, { schema });
  const translate = getInstance(context).getFixedT(getLocale(context), "forms") as unknown as (key: string) => string;
  const reply: FormReply = (errors = {}) => translateReply(submission.reply({ ...errors, hideFields }), translate);
  const answer = (status: number, errors?: ReplyErrors) =>
    data({ ...(extra as Extra), result: reply(errors) }, { status });

  if (submission.status !== "success") return answer(400);
  const attempt = attemptLimit?.(submission.value);
  const refusal = attempt ? await checkAttemptLimit(context, attempt) : null;
  // Too Many Requests. No Retry-After: React Router sends an action's headers on a document response only through the
  // route's `headers` export, and the message already says when to come back.
  if (refusal) return answer(429, { formErrors: [`toasts:${refusal.messageKey}`] });
  let signIn: SignInAllowance | null = null;
  if (signInLimit) {
    const allowed = await allowSignInAttempt(context, signInLimit(submission.value));
    if ("refusal" in allowed) return answer(429, { formErrors: [`toasts:${allowed.refusal.messageKey}`] });
    signIn = allowed;
  }
  let refused = false;
  try {
    const outcome = await run(submission.value, reply, { refused: () => (refused = true) });
    await signIn?.settle({ refused });
    return outcome;
  } catch (failure) {
    // A redirect, another answer or a fault is no refused password: only a credential refusal stays counted.
    await signIn?.settle({ refused: isCredentialRefusal(failure) });
    const error = domainErrorOf(failure);
    const message = messageKeyOf(error);
    const field = errorFields?.[error.code];
    return answer(httpStatusOf(error), field ? { fieldErrors: { [field]: [message] } } : { formErrors: [message] });
  }
}
