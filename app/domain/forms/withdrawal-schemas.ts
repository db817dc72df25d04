import { z } from "zod";
import { CurrentPasswordSchema, storableText } from "./field-schemas";
import { MAX_WITHDRAWAL_DETAIL_LENGTH, WITHDRAWAL_REASONS, type WithdrawalReason } from "./form-choices";

/**
 * The cancellation form: a reason and the specific reason when it is "other"; then, on the confirmation step, the
 * disclaimer agreement and the password (the spec's order). Messages are keys of the "forms" namespace.
 */

const answers = {
  reason: z.enum(WITHDRAWAL_REASONS, { error: "validation.selectRequired" }),
  detail: storableText().trim().max(MAX_WITHDRAWAL_DETAIL_LENGTH, "validation.tooLong").optional(),
};

function requireDetailForOther(
  value: { reason: WithdrawalReason; detail?: string | undefined },
  context: z.RefinementCtx,
) {
  if (value.reason === "other" && !value.detail) {
    context.addIssue({ code: "custom", path: ["detail"], message: "validation.required" });
  }
}

/** Step 1: the reason. */
export const WithdrawalFormSchema = z.object(answers).superRefine(requireDetailForOther);
export type WithdrawalAnswers = z.infer<typeof WithdrawalFormSchema>;

/** Step 2: step 1's answers (carried in hidden fields), the disclaimer agreement and the password. */
export const WithdrawalConfirmSchema = z
  .object({
    ...answers,
    agreeDisclaimer: z.literal("on", { error: "validation.agree" }),
    password: CurrentPasswordSchema,
  })
  .superRefine(requireDetailForOther);

/**
 * POST /api/withdrawal-reasons: the same answers as JSON, the disclaimer as `true` (the calling service shows
 * it), and the password, which cancelling always asks for again.
 */
export const WithdrawalApiSchema = z
  .object({
    reason: answers.reason,
    detail: answers.detail,
    agreeDisclaimer: z.literal(true, { error: "validation.agree" }),
    password: CurrentPasswordSchema,
  })
  .superRefine(requireDetailForOther);
