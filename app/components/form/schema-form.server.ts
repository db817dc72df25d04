import type { SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import type { RouterContextProvider } from "react-router";
import type { z } from "zod";
import type { TranslationRequest } from "~/i18n/translations.server";
import { getInstance, getLocale } from "~/middleware/i18n.server";
import type { FormConstraint } from "./use-schema-form";

/*
 * The server's half of the form kit (use-schema-form.ts): what a loader sends a form page, and how its action parses
 * and answers a post. Everything a loader sends is weighed with the page's JavaScript (tests/bench/README.md).
 */

/**
 * The "forms" texts a form page's components render themselves: the "required" badge and the select's placeholder.
 * Error messages are not among them: the action sends them translated (parseSubmission).
 */
export const FORM_FIELD_TEXTS: TranslationRequest = {
  namespace: "forms",
  keys: ["form", "validation.selectRequired"],
};

/** A form reply whose error messages (keys of "forms", or namespaced: "toasts:…") are texts in `translate`'s language. */
function translateReply(result: SubmissionResult<string[]>, translate: (key: string) => string) {
  if (!result.error) return result;
  const error = Object.fromEntries(
    Object.entries(result.error).map(([name, messages]) => [name, messages?.map((key) => translate(key)) ?? null]),
  );
  return { ...result, error };
}

/**
 * Conform's parseWithZod for an action, whose replies carry every message (the schema's, a domain error's, an
 * attempt limit's) already translated into the request's language: the page then needs none of the error texts
 * in its loader data, which every visitor would download whether or not the form ever fails.
 */
export function parseSubmission<Schema extends z.ZodType>(
  context: Readonly<RouterContextProvider>,
  formData: FormData,
  schema: Schema,
) {
  const submission = parseWithZod(formData, { schema });
  const translate = getInstance(context).getFixedT(getLocale(context), "forms") as unknown as (key: string) => string;
  return {
    ...submission,
    reply: (options?: Parameters<typeof submission.reply>[0]) => translateReply(submission.reply(options), translate),
  };
}

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
