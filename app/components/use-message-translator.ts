import { useTranslation } from "~/i18n/use-translation";

type TranslateMessage = (key: string, values?: Record<string, string>) => string;

/**
 * Translates a message key that arrives as data (a validation error from a Zod schema), so the compiler cannot
 * check it the way it checks keys written in JSX. Keys are in the "forms" namespace unless prefixed ("errors:…").
 * Form actions send their messages already translated (handleFormPost in app/forms/form-action.server.ts),
 * and the staff pages' loaders send their filters' errors translated (translateFieldErrors in
 * app/forms/field-errors.server.ts), so those pages send no error texts. A text, or an unknown key, is
 * shown as is.
 */
export function useMessageTranslator(): TranslateMessage {
  return useTranslation("forms").message;
}
