import { type APIRequestContext, expect } from "@playwright/test";

/**
 * The path of the link in the newest mail (kind "mail") to an address that matches `pathPattern` (a pattern of the
 * path after the optional "/en"), read from the dev mailbox page as a developer would. Polls briefly: the mail is
 * filed as the request that sent it completes, or, for the outbox's mail, just after. `after` skips a link already
 * seen.
 */
async function latestMailLinkFor(
  request: APIRequestContext,
  email: string,
  pathPattern: string,
  after: string,
): Promise<string> {
  const linkPattern = new RegExp(`https?:\\/\\/[^\\s<"]+?(\\/(?:en\\/)?${pathPattern})`);
  let link = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/__dev/mailbox/")).text();
        const entries = html.split('<li class="mailbox-entry"').slice(1);
        const entry = entries.find(
          (candidate) => candidate.startsWith(' data-kind="mail"') && candidate.includes(`>${email}<`),
        );
        link = linkPattern.exec(entry ?? "")?.[1] ?? "";
        return link !== "" && link !== after;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return link;
}

/** The e-mail change link ("/email-update/<token>/" or "/en/email-update/<token>/") in the newest mail to an address. */
export function latestEmailUpdateLinkFor(request: APIRequestContext, email: string, after = ""): Promise<string> {
  return latestMailLinkFor(request, email, "email-update\\/[A-Za-z0-9_-]+\\/", after);
}

/** The sign-in alert's link ("/sign-in-alert/<token>/" or "/en/…") in the newest mail to an address. */
export function latestSignInAlertLinkFor(request: APIRequestContext, email: string, after = ""): Promise<string> {
  return latestMailLinkFor(request, email, "sign-in-alert\\/[A-Za-z0-9_-]+\\/", after);
}
