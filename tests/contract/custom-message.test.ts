/**
 * Contract: the user pool's custom message trigger as the Amazon Cognito Developer Guide's "Custom message Lambda
 * trigger" describes it, through the AWS SDK against the stand-in, with the app's own function
 * (app/integrations/cognito/custom-message.ts) set on the pool as `LambdaConfig.CustomMessage`:
 * - Cognito invokes it before it mails a code, with `triggerSource` CustomMessage_SignUp, CustomMessage_ResendCode or
 *   CustomMessage_ForgotPassword, the user's attributes (`request.userAttributes`), the operation's ClientMetadata
 *   (`request.clientMetadata`) and the placeholder of the code (`request.codeParameter`, `{####}`);
 * - it mails the answer's `response.emailSubject` and `response.emailMessage`, with the code in place of the
 *   placeholder, which the message must contain;
 * - a pool without the trigger mails Cognito's default text; a trigger Cognito cannot invoke fails the operation
 *   (UnexpectedLambdaException).
 */
import {
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  ForgotPasswordCommand,
  type LambdaConfigType,
  ResendConfirmationCodeCommand,
  SignUpCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { REQUIRED_CLIENT_SETTINGS, requiredPasswordPolicy } from "~/integrations/cognito/pool-contract.server";
import { standInFunctionArn } from "../support/stand-ins/stand-in/function-names";
import en from "../../locales/en/code-mail.json";
import ja from "../../locales/ja/code-mail.json";
import { type ContractStandIn, PASSWORD, rejection, startContractStandIn } from "./contract-fixture";

let cognito: ContractStandIn;

beforeAll(async () => {
  cognito = await startContractStandIn("custom-message");
});

afterAll(async () => {
  await cognito?.stop();
});

/** The one code mail `email` received, as the mailbox holds it. */
async function onlyMailTo(email: string) {
  const mails = await cognito.messagesFor(email);
  expect(mails).toHaveLength(1);
  return mails[0]!;
}

/** The mail the trigger words, with the code mailed in place of `{{code}}`. */
function expectedMail(texts: { subject: string; text: string }, code: string) {
  return { subject: texts.subject, text: texts.text.replace("{{code}}", code) };
}

const signUp = (email: string, extra: Partial<{ locale: string; metadataLocale: string }> = {}) =>
  cognito.cognito.send(
    new SignUpCommand({
      ClientId: cognito.clientId,
      Username: email,
      Password: PASSWORD,
      UserAttributes: extra.locale ? [{ Name: "locale", Value: extra.locale }] : undefined,
      ClientMetadata: extra.metadataLocale ? { locale: extra.metadataLocale } : undefined,
    }),
  );

describe("CustomMessage_SignUp", () => {
  test("the code mail is in the language the caller's ClientMetadata names, with the code in the message", async () => {
    const email = cognito.email("sign-up-en");
    await signUp(email, { metadataLocale: "en", locale: "ja" });
    const mail = await onlyMailTo(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail).toMatchObject(expectedMail(en.signUp, mail.code!));
    expect(mail.text).not.toContain("{####}");
  });

  test("without ClientMetadata the user's locale attribute chooses, and without either it is Japanese", async () => {
    const english = cognito.email("attribute-en");
    await signUp(english, { locale: "en" });
    const toEnglish = await onlyMailTo(english);
    expect(toEnglish).toMatchObject(expectedMail(en.signUp, toEnglish.code!));

    const japanese = cognito.email("no-locale");
    await signUp(japanese);
    const toJapanese = await onlyMailTo(japanese);
    expect(toJapanese).toMatchObject(expectedMail(ja.signUp, toJapanese.code!));
  });
});

describe("CustomMessage_ResendCode", () => {
  test("a resent code is worded like the first, in the language of the resend's ClientMetadata", async () => {
    const email = cognito.email("resend");
    await signUp(email, { metadataLocale: "en" });
    await cognito.cognito.send(
      new ResendConfirmationCodeCommand({
        ClientId: cognito.clientId,
        Username: email,
        ClientMetadata: { locale: "ja" },
      }),
    );
    const [resent, first] = await cognito.messagesFor(email);
    expect(first).toMatchObject(expectedMail(en.signUp, first!.code!));
    expect(resent).toMatchObject(expectedMail(ja.signUp, resent!.code!));
  });
});

describe("CustomMessage_ForgotPassword", () => {
  test("the reset code mail is a reset mail, in the language of the ClientMetadata", async () => {
    const email = cognito.email("forgot");
    await cognito.confirmedMember(email);
    for (const locale of ["en", "ja"] as const) {
      await cognito.cognito.send(
        new ForgotPasswordCommand({ ClientId: cognito.clientId, Username: email, ClientMetadata: { locale } }),
      );
    }
    const [japanese, english] = await cognito.messagesFor(email);
    expect(english).toMatchObject(expectedMail(en.forgotPassword, english!.code!));
    expect(japanese).toMatchObject(expectedMail(ja.forgotPassword, japanese!.code!));
  });
});

describe("a pool's LambdaConfig.CustomMessage", () => {
  /** A second pool with `lambdaConfig`, and a sign-up to it. */
  async function signUpToPoolWith(lambdaConfig: LambdaConfigType | undefined, email: string) {
    const pool = await cognito.cognito.send(
      new CreateUserPoolCommand({
        PoolName: `custom-message-${Date.now()}`,
        UsernameAttributes: ["email"],
        AutoVerifiedAttributes: ["email"],
        Policies: { PasswordPolicy: requiredPasswordPolicy(8) },
        ...(lambdaConfig ? { LambdaConfig: lambdaConfig } : {}),
      }),
    );
    const userPoolId = pool.UserPool!.Id!;
    const client = await cognito.cognito.send(
      new CreateUserPoolClientCommand({ UserPoolId: userPoolId, ClientName: "web", ...REQUIRED_CLIENT_SETTINGS }),
    );
    const clientId = client.UserPoolClient!.ClientId!;
    await cognito.cognito.send(
      new SignUpCommand({ ClientId: clientId, Username: email, Password: PASSWORD, ClientMetadata: { locale: "en" } }),
    );
  }

  test("unset, the code goes out in Cognito's own default text", async () => {
    const email = cognito.email("no-trigger");
    await signUpToPoolWith(undefined, email);
    const mail = await onlyMailTo(email);
    expect(mail.subject).not.toBe(en.signUp.subject);
    expect(mail.text).toContain(mail.code!);
  });

  test("naming a function Cognito cannot invoke fails the sign-up with UnexpectedLambdaException", async () => {
    const email = cognito.email("broken-trigger");
    const error = await rejection(signUpToPoolWith({ CustomMessage: standInFunctionArn("no-such-function") }, email));
    expect(error.name).toBe("UnexpectedLambdaException");
    expect(await cognito.messagesFor(email)).toEqual([]);
  });
});
