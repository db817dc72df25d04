import type { DefaultValue, FormMetadata, SubmissionResult } from "@conform-to/react";
import type { getZodConstraint } from "@conform-to/zod/v4";
import { useEffect, useId, useState } from "react";
import type { z } from "zod";
import { errorSummaryIdOf } from "./fields";

type FormSchema = z.ZodType<Record<string, unknown>>;
type FormInput<Schema extends FormSchema> = z.input<Schema> & Record<string, unknown>;

/**
 * A schema's constraints as HTML attributes (required, lengths): the loader derives them with
 * `formConstraint(schema)` (schema-form.server.ts) and sends them with its data, so the browser never downloads Zod.
 */
export type FormConstraint = ReturnType<typeof getZodConstraint>;

type SchemaFormOptions<Schema extends FormSchema> = {
  /** Where the form starts (e.g. what is stored); a server reply's values take over after a refusal. */
  defaultValue?: DefaultValue<FormInput<Schema>>;
  /**
   * The fields the action leaves out of its reply (`hideFields`). Without JavaScript the new page never has
   * them; with JavaScript the page stays and the typed values stay in the inputs, so they are emptied here as well.
   */
  secretFields?: readonly (keyof z.input<Schema> & string)[];
};

/**
 * The members of Conform's form and field metadata that its prop helpers (getFormProps, getInputProps,
 * getSelectProps, getTextareaProps) and our field components read. Conform's `useForm` would give all of them,
 * but its browser runtime (client-side validation, intents, subscriptions) would weigh on every form page's
 * JavaScript budget, and the action alone validates here; so this hook builds just these from the action's reply.
 */
type FieldState = {
  id: string;
  formId: string;
  name: string;
  errorId: string;
  descriptionId: string;
  initialValue: unknown;
  errors: string[] | undefined;
  valid: boolean;
  key: undefined;
} & FormConstraint[string];

/**
 * The house's form setup, for every form (`useSchemaForm<typeof TheSchema>(loaderData.constraint, …)`): the
 * schema's constraints as HTML attributes, and the action's Zod verdict (Conform's `submission.reply()`) shown
 * beside each field. The action alone validates, with JavaScript on or off: the same messages on one path, and no
 * validation library in the page (Zod would be a large share of a form page's JavaScript). With JavaScript the reply
 * comes back without a page load, typed values kept, and the focus moves to the form's error summary (FormAlert).
 * Ids follow Conform's (`${formId}-${name}`, `-error`, `-description`), and the form has `noValidate`, as
 * Conform's forms do: the server's messages, not the browser's, in the page's language.
 */
export function useSchemaForm<Schema extends FormSchema>(
  constraint: FormConstraint,
  lastResult: SubmissionResult<string[]> | undefined,
  { defaultValue, secretFields = [] }: SchemaFormOptions<Schema> = {},
) {
  const formId = useId();
  // Like Conform, the form starts from the reply it was rendered with (no JavaScript) or from defaultValue; later
  // replies leave the inputs as typed.
  const [initial] = useState(() => ({
    result: lastResult,
    values: (lastResult?.initialValue ?? defaultValue ?? {}) as Record<string, unknown>,
  }));
  const errors = lastResult?.error ?? {};

  const fieldState = (name: string): FieldState => {
    const id = `${formId}-${name}`;
    const fieldErrors = errors[name] ?? undefined;
    return {
      ...constraint[name],
      id,
      formId,
      name,
      errorId: `${id}-error`,
      descriptionId: `${id}-description`,
      initialValue: initial.values[name],
      errors: fieldErrors,
      valid: !fieldErrors,
      key: undefined,
    };
  };
  const formErrors = errors[""] ?? undefined;
  const form = {
    id: formId,
    errorId: `${formId}-error`,
    descriptionId: `${formId}-description`,
    errors: formErrors,
    // Every message of the reply by field name ("" for the form's own), as Conform's form metadata has them.
    allErrors: errors,
    valid: !formErrors,
    noValidate: true,
  };
  const fields = new Proxy({} as Record<string, FieldState>, {
    get: (_, name) => (typeof name === "string" ? fieldState(name) : undefined),
  });

  const secretIds = secretFields.map((name) => `${formId}-${name}`).join(" ");
  useEffect(() => {
    if (lastResult?.status !== "error") return;
    for (const id of secretIds.split(" ").filter(Boolean)) {
      const input = document.getElementById(id);
      if (input instanceof HTMLInputElement) input.value = "";
    }
    // A reply that arrived without a page load: take the reader to the form's error summary, as the page rendered
    // with the reply does by itself (FormAlert's autofocus).
    if (lastResult === initial.result) return;
    document.getElementById(errorSummaryIdOf(formId))?.focus();
  }, [lastResult, secretIds, formId, initial.result]);

  // Typed as Conform's own metadata, so the call sites keep using Conform's prop helpers, which read only the
  // members above (FieldState).
  type Form = FormMetadata<FormInput<Schema>, string[]>;
  return [form as unknown as Form, fields as unknown as ReturnType<Form["getFieldset"]>] as const;
}
