import { type APIRequestContext, expect } from "@playwright/test";

/**
 * The e-mail change link in the newest mail (kind "mail") to an address, read from the dev mailbox page as a
 * developer would. Returns the link's path ("/email-update/<token>/" or "/en/email-update/<token>/"). Polls
 * briefly: the capture files the mail as the request that sent it completes. `after` skips a link already seen.
 */
export async function latestEmailUpdateLinkFor(request: APIRequestContext, email: string, after = ""): Promise<string> {
  let link = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/__dev/mailbox/")).text();
        const entries = html.split('<li class="mailbox-entry"').slice(1);
        const entry = entries.find(
          (candidate) => candidate.startsWith(' data-kind="mail"') && candidate.includes(`>${email}<`),
        );
        const url = /https?:\/\/[^\s<"]+?(\/(?:en\/)?email-update\/[A-Za-z0-9_-]+\/)/.exec(entry ?? "");
        link = url?.[1] ?? "";
        return link !== "" && link !== after;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return link;
}
