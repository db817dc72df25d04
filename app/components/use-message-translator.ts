import { useTranslation } from "react-i18next";

type TranslateMessage = (key: string, values?: Record<string, string>) => string;

/**
 * Translates a message key that arrives as data (a toast from the cookie, a validation error from a Zod schema),
 * so the compiler cannot check it the way it checks keys written in JSX. Keys are in the "common" namespace
 * unless prefixed ("errors:…"); an unknown key is shown as is, which a test would notice.
 */
export function useMessageTranslator(): TranslateMessage {
  const { t } = useTranslation();
  return t as unknown as TranslateMessage;
}
