import { type DefaultValue, type SubmissionResult, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { useEffect } from "react";
import type { z } from "zod";

type FormSchema = z.ZodType<Record<string, unknown>>;
type FormInput<Schema extends FormSchema> = z.input<Schema> & Record<string, unknown>;

type SchemaFormOptions<Schema extends FormSchema> = {
  /** Where the form starts (e.g. what is stored); a server reply's values take over after a refusal. */
  defaultValue?: DefaultValue<FormInput<Schema>>;
  /**
   * false: the server alone validates. For forms with checkboxes: Conform leaves fields absent from the posted
   * data (unchecked boxes) out of browser-side validation, so their messages would need a round trip anyway;
   * one path for everyone, JavaScript or not.
   */
  validateInBrowser?: boolean;
  /**
   * The fields the action leaves out of its reply (`hideFields`). Without JavaScript the new page never has
   * them; with JavaScript the page stays and Conform keeps what was typed, so they are emptied here as well.
   */
  secretFields?: readonly (keyof z.input<Schema> & string)[];
};

/**
 * The house's Conform setup, for every form: the schema's constraints as HTML attributes (the form works with
 * JavaScript off), the same Zod schema in the browser as in the action, errors shown once a field is left and
 * updated while typing.
 */
export function useSchemaForm<Schema extends FormSchema>(
  schema: Schema,
  lastResult: SubmissionResult<string[]> | undefined,
  { defaultValue, validateInBrowser = true, secretFields = [] }: SchemaFormOptions<Schema> = {},
) {
  const [form, fields] = useForm<FormInput<Schema>, z.output<Schema>, string[]>({
    lastResult,
    defaultValue,
    constraint: getZodConstraint(schema),
    ...(validateInBrowser
      ? {
          onValidate: ({ formData }) => parseWithZod(formData, { schema }),
          shouldValidate: "onBlur",
          shouldRevalidate: "onInput",
        }
      : {}),
  });
  const secretIds = secretFields.map((name) => fields[name].id).join(" ");
  useEffect(() => {
    if (lastResult?.status !== "error" || !secretIds) return;
    for (const id of secretIds.split(" ")) {
      const input = document.getElementById(id);
      if (input instanceof HTMLInputElement) input.value = "";
    }
  }, [lastResult, secretIds]);
  return [form, fields] as const;
}
