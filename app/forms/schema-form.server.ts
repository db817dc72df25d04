import { getZodConstraint } from "@conform-to/zod/v4";
import type { z } from "zod";
import type { FormConstraint } from "~/components/form/use-schema-form";
import type { TranslationRequest } from "~/i18n/translations.server";

/*
 * The loader's half of the form kit (the page's is app/components/form/use-schema-form.ts, the action's
 * form-action.server.ts): what a loader sends a form page. Everything a loader sends is weighed with the page's
 * JavaScript (tests/bench/README.md).
 */

/**
 * The "forms" texts a form page's components render themselves: the "required" badge and the select's placeholder.
 * Error messages are not among them: the action sends them translated (handleFormPost).
 */
export const FORM_FIELD_TEXTS: TranslationRequest = {
  namespace: "forms",
  keys: ["form", "validation.selectRequired"],
};

/**
 * A schema's constraints as HTML attributes, for a loader to send (useSchemaForm). Without `pattern`: the forms are
 * `noValidate` and the action validates, so a pattern (the list fields' allowed values, Japan's 47 among them) would
 * only add weight to the page.
 */
export function formConstraint(schema: z.ZodType): FormConstraint {
  return Object.fromEntries(
    Object.entries(getZodConstraint(schema)).map(([name, { pattern: _pattern, ...constraint }]) => [name, constraint]),
  );
}
