import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { expect, test } from "vitest";
import type { CustomMessageEvent } from "~/integrations/cognito/custom-message";
import { type PreTokenGenerationEvent, SELF_SERVICE_SCOPE } from "~/integrations/cognito/pre-token-generation";
import en from "../../../locales/en/code-mail.json";
import { makeTempDir } from "../../support/temp-dir";

/**
 * A compiled trigger as Lambda runs it (docs/deployment.md): the file alone, renamed index.mjs, in a directory of its
 * own with nothing beside it, without its source map. Vitest's global setup has built build/http-server/.
 */
async function deployedAlone<Handler>(compiled: string): Promise<Handler> {
  const lambda = makeTempDir("lambda");
  try {
    const file = path.join(lambda.dir, "index.mjs");
    const source = readFileSync(path.resolve("build/http-server", compiled), "utf8");
    writeFileSync(file, source.replace(/^\/\/# sourceMappingURL=.*$/m, ""));
    return ((await import(pathToFileURL(file).href)) as { handler: Handler }).handler;
  } finally {
    lambda.remove();
  }
}

test("the compiled custom message trigger runs alone, as Lambda runs it", async () => {
  const handler = await deployedAlone<(event: CustomMessageEvent) => Promise<CustomMessageEvent>>("custom-message.js");
  const answer = await handler({
    version: "1",
    triggerSource: "CustomMessage_ForgotPassword",
    userPoolId: "ap-northeast-1_EXAMPLE",
    userName: "member",
    callerContext: { clientId: "example-client" },
    request: { userAttributes: {}, codeParameter: "{####}", usernameParameter: null, clientMetadata: { locale: "en" } },
    response: { emailSubject: null, emailMessage: null, smsMessage: null },
  });
  expect(answer.response.emailSubject).toBe(en.forgotPassword.subject);
  expect(answer.response.emailMessage).toContain("{####}");
});

test("the compiled pre token generation trigger runs alone, as Lambda runs it", async () => {
  const handler =
    await deployedAlone<(event: PreTokenGenerationEvent) => Promise<PreTokenGenerationEvent>>(
      "pre-token-generation.js",
    );
  const answer = await handler({
    version: "2",
    triggerSource: "TokenGeneration_Authentication",
    callerContext: { clientId: "a-browser-client" },
    request: { scopes: [SELF_SERVICE_SCOPE] },
    response: { claimsAndScopeOverrideDetails: null },
  });
  expect(answer.response.claimsAndScopeOverrideDetails?.accessTokenGeneration?.scopesToSuppress).toEqual([
    SELF_SERVICE_SCOPE,
  ]);
});
