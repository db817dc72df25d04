/**
 * The user pool's custom message trigger (Lambda): the codes Cognito mails itself (the sign-up code, its resend, the
 * password-reset code) go out in the member's language instead of Cognito's English default. The language is the
 * page's, which the app passes as `ClientMetadata.locale` on SignUp, ResendConfirmationCode and ForgotPassword; else
 * the user's `locale` attribute (set at sign-up, changed with the preferred language); else Japanese.
 *
 * Cognito puts `request.codeParameter` (`{####}`) where the text says the code and replaces it with the code itself;
 * a message without it would mail no code, so every text carries it. Other messages (the staff's invitation, which
 * the pool's InviteMessageTemplate words in both languages, and attribute verifications, which the app never
 * starts) are answered unchanged, and Cognito sends its own text for them.
 *
 * Deployed as the pool's trigger (docs/deployment.md) from the compiled `build/http-server/custom-message.js`; the
 * Cognito stand-in runs the same function. No imports at run time: the texts, from locales/, are compiled in, so
 * Lambda runs the file as it is.
 */
import en from "../../../locales/en/code-mail.json";
import ja from "../../../locales/ja/code-mail.json";

/** The part of a custom message event the function reads and answers (Cognito sends more). */
export interface CustomMessageEvent {
  version: string;
  triggerSource: string;
  userPoolId: string;
  userName: string;
  callerContext: { clientId: string; awsSdkVersion?: string };
  request: {
    userAttributes: Record<string, string>;
    codeParameter: string;
    usernameParameter: string | null;
    linkParameter?: string | null;
    clientMetadata?: Record<string, string> | null;
  };
  response: { emailSubject: string | null; emailMessage: string | null; smsMessage: string | null };
  [key: string]: unknown;
}

type CodeMailLocale = "ja" | "en";
type CodeMailKind = keyof typeof ja;

const TEXTS: Record<CodeMailLocale, typeof ja> = { ja, en };

/** The code mails the trigger words, by trigger source; a resent sign-up code reads like the first. */
const KIND_OF_SOURCE: Record<string, CodeMailKind> = {
  CustomMessage_SignUp: "signUp",
  CustomMessage_ResendCode: "signUp",
  CustomMessage_ForgotPassword: "forgotPassword",
};

/** "en", "en-US", "en_US" → "en"; anything that is neither language → null. */
function codeMailLocale(value: string | null | undefined): CodeMailLocale | null {
  const language = value?.slice(0, 2).toLowerCase();
  return language === "en" || language === "ja" ? language : null;
}

/** The page's language if the app passed it, else the user's `locale` attribute, else Japanese. */
export function localeOfEvent(event: CustomMessageEvent): CodeMailLocale {
  return (
    codeMailLocale(event.request.clientMetadata?.locale) ?? codeMailLocale(event.request.userAttributes.locale) ?? "ja"
  );
}

/** The event answered: the subject and text of a code mail in the member's language, other messages unchanged. */
export function wordCodeMail<Event extends CustomMessageEvent>(event: Event): Event {
  const kind = KIND_OF_SOURCE[event.triggerSource];
  if (!kind) return event;
  const texts = TEXTS[localeOfEvent(event)][kind];
  return {
    ...event,
    response: {
      ...event.response,
      emailSubject: texts.subject,
      // A function replacer: the code parameter is put in as it is, whatever `$` patterns it holds.
      emailMessage: texts.text.replace("{{code}}", () => event.request.codeParameter),
    },
  };
}

/** Lambda's entry point. */
export function handler(event: CustomMessageEvent): Promise<CustomMessageEvent> {
  return Promise.resolve(wordCodeMail(event));
}
