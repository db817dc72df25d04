import { expect } from "vitest";
import { type MailboxEntry, listMailboxEntries, mailboxDirectory } from "./stand-ins/dev-mailbox";

/**
 * The code mails the Cognito stand-in sent to `email`, newest first, once there are `count` of them: the mailbox of
 * a server started on `dataDir`, where the stand-in writes what Cognito would have mailed.
 */
export async function codeMailsTo(dataDir: string, email: string, count = 1): Promise<MailboxEntry[]> {
  let mails: MailboxEntry[] = [];
  await expect
    .poll(async () => {
      mails = (await listMailboxEntries(mailboxDirectory(dataDir))).filter(
        (entry) => entry.kind === "code" && entry.to.includes(email),
      );
      return mails.length;
    })
    .toBeGreaterThanOrEqual(count);
  return mails;
}
