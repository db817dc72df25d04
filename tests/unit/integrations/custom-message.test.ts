import { expect, test } from "vitest";
import { type CustomMessageEvent, handler } from "~/integrations/cognito/custom-message";
import en from "../../../locales/en/code-mail.json";
import ja from "../../../locales/ja/code-mail.json";

/** An event as the Developer Guide's "Custom message Lambda trigger" shows it (version 1, placeholders unreplaced). */
function event(change: { triggerSource?: string; clientMetadata?: Record<string, string>; locale?: string } = {}) {
  return {
    version: "1",
    triggerSource: change.triggerSource ?? "CustomMessage_SignUp",
    region: "ap-northeast-1",
    userPoolId: "ap-northeast-1_EXAMPLE",
    userName: "5f1c0c1e-0000-4000-8000-000000000000",
    callerContext: { awsSdkVersion: "aws-sdk-unknown-unknown", clientId: "example-client" },
    request: {
      userAttributes: { email: "member@example.jp", ...(change.locale ? { locale: change.locale } : {}) },
      codeParameter: "{####}",
      linkParameter: "{##Click Here##}",
      usernameParameter: null,
      ...(change.clientMetadata ? { clientMetadata: change.clientMetadata } : {}),
    },
    response: { smsMessage: null, emailMessage: null, emailSubject: null },
  } satisfies CustomMessageEvent;
}

test("the message keeps Cognito's code parameter where the text says the code", async () => {
  const { response } = await handler(event());
  expect(response.emailSubject).toBe(ja.signUp.subject);
  expect(response.emailMessage).toBe(ja.signUp.text.replace("{{code}}", "{####}"));
});

test("a regional language tag counts as its language, in the metadata as in the attribute", async () => {
  expect((await handler(event({ clientMetadata: { locale: "en-US" } }))).response.emailSubject).toBe(en.signUp.subject);
  expect((await handler(event({ locale: "en_US" }))).response.emailSubject).toBe(en.signUp.subject);
  expect((await handler(event({ locale: "fr" }))).response.emailSubject).toBe(ja.signUp.subject);
});

test("messages other than the code mails (the staff's invitation) are answered unchanged", async () => {
  const invitation = { ...event({ triggerSource: "CustomMessage_AdminCreateUser" }) };
  expect(await handler(invitation)).toEqual(invitation);
});
