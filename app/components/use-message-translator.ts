import { useTranslation } from "~/i18n/use-translation";

type TranslateMessage = (key: string, values?: Record<string, string>) => string;

/**
 * Translates a message key that arrives as data (a validation error from a Zod schema), so the compiler cannot
 * check it the way it checks keys written in JSX. Keys are in the "forms" namespace, which every form page's
 * loader sends, unless prefixed ("errors:…"); an unknown key is shown as is, which a test would notice.
 */
export function useMessageTranslator(): TranslateMessage {
  const { t } = useTranslation("forms");
  return t as unknown as TranslateMessage;
}
