/**
 * The pool's custom message trigger, as Cognito runs it, in place of cognito-local's own: cognito-local invokes a
 * CustomMessage function named in its process-wide configuration (not the pool's LambdaConfig), through the Lambda
 * API, and mails its default text when the function fails. Cognito reads the pool's `LambdaConfig.CustomMessage`,
 * and a function that fails fails the operation that sends the code. Never part of production.
 */
import type { CustomMessageEvent } from "~/integrations/cognito/custom-message";
import type {
  CodeDeliveryDetails,
  Ctx,
  LocalCognitoService,
  LocalMessageDelivery,
  LocalMessages,
} from "./cognito-local";
import { CognitoFault } from "./errors";
import type { LambdaFunctions } from "./lambda-functions";
import { invokeAsCognitoLocal } from "./tokens";

/** Cognito's placeholders in the event: the function puts them where the code and the user name go. */
export const CODE_PARAMETER = "{####}";
export const USERNAME_PARAMETER = "{username}";
/** The client id Cognito names for operations no app client made (AdminCreateUser, AdminUpdateUserAttributes). */
const NO_CLIENT_ID = "CLIENT_ID_NOT_APPLICABLE";

/**
 * cognito-local's `messages` with the pool's trigger: the function gets Cognito's event (`triggerSource`
 * `CustomMessage_<source>`, the user's attributes, the code and user name placeholders, the caller's ClientMetadata)
 * and its `emailSubject` / `emailMessage` are mailed with the placeholders replaced. An answer that leaves the message
 * unset mails the default text. A message without the code parameter is refused (InvalidLambdaResponseException):
 * Cognito's documentation requires it there, and without it the member would get no code.
 */
export function withCustomMessage(options: {
  cognito: LocalCognitoService;
  delivery: LocalMessageDelivery;
  functions: LambdaFunctions;
  region?: string;
}): LocalMessages {
  return {
    async deliver(ctx, source, clientId, userPoolId, user, code, clientMetadata, deliveryDetails: CodeDeliveryDetails) {
      const pool = await options.cognito.getUserPool(ctx as Ctx, userPoolId);
      const arn = (pool.options.LambdaConfig as { CustomMessage?: unknown } | undefined)?.CustomMessage;
      if (typeof arn !== "string") {
        return options.delivery.deliver(ctx, user, deliveryDetails, { __code: code });
      }
      const event: CustomMessageEvent = {
        version: "1",
        triggerSource: `CustomMessage_${source}`,
        region: options.region ?? "ap-northeast-1",
        userPoolId,
        userName: user.Username,
        callerContext: { awsSdkVersion: "aws-sdk-unknown-unknown", clientId: clientId ?? NO_CLIENT_ID },
        request: {
          userAttributes: Object.fromEntries(user.Attributes.map(({ Name, Value }) => [Name, Value ?? ""])),
          codeParameter: CODE_PARAMETER,
          linkParameter: "{##Click Here##}",
          usernameParameter: source === "AdminCreateUser" ? USERNAME_PARAMETER : null,
          clientMetadata: clientMetadata ?? {},
        },
        response: { emailSubject: null, emailMessage: null, smsMessage: null },
      };
      const { response } = await invokeAsCognitoLocal(async () => {
        const answer = await options.functions.invoke(arn, event);
        if (
          typeof answer.response.emailMessage === "string" &&
          !answer.response.emailMessage.includes(CODE_PARAMETER)
        ) {
          throw new CognitoFault(
            "InvalidLambdaResponseException",
            `The custom message's emailMessage must contain the code parameter ${CODE_PARAMETER}`,
          );
        }
        return answer;
      });
      if (typeof response.emailMessage !== "string") {
        return options.delivery.deliver(ctx, user, deliveryDetails, { __code: code });
      }
      return options.delivery.deliver(ctx, user, deliveryDetails, {
        __code: code,
        emailSubject: response.emailSubject ?? undefined,
        emailMessage: response.emailMessage
          .replaceAll(CODE_PARAMETER, code)
          .replaceAll(USERNAME_PARAMETER, user.Username),
      });
    },
  };
}
