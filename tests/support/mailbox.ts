import { type APIRequestContext, expect } from "@playwright/test";

/**
 * The newest code the Cognito stand-in sent to an address, read from the dev mailbox page as a developer would.
 * Polls briefly: the code is written by the stand-in's process as the request that triggered it completes.
 */
export async function latestCodeFor(request: APIRequestContext, email: string, after = ""): Promise<string> {
  let code = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/__dev/mailbox/")).text();
        const entries = html.split('<li class="mailbox-entry"').slice(1);
        const entry = entries.find((candidate) => candidate.includes(`>${email}<`));
        code = /<code class="mailbox-code">(\d+)<\/code>/.exec(entry ?? "")?.[1] ?? "";
        return code !== "" && code !== after;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return code;
}
