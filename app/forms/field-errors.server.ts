import type { RouterContextProvider } from "react-router";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";

/**
 * A GET form's field errors (message keys of "forms", or namespaced) as texts in the request's language, for a
 * loader to send: the page then needs none of the error texts in its data, like the pages whose actions translate
 * their replies. A message that is no key is left as it is.
 */
export function translateFieldErrors<Field extends string>(
  context: Readonly<RouterContextProvider>,
  fieldErrors: Partial<Record<Field, string[] | undefined>>,
): Partial<Record<Field, string[]>> {
  const translate = getInstance(context).getFixedT(getLocale(context), "forms") as unknown as (key: string) => string;
  return Object.fromEntries(
    Object.entries<string[] | undefined>(fieldErrors).flatMap(([field, messages]) =>
      messages ? [[field, messages.map((message) => translate(message))]] : [],
    ),
  ) as Partial<Record<Field, string[]>>;
}
