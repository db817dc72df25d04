import { createIdentityProvider } from "~/integrations/cognito/identity-provider.server";
import { connectToStandIn } from "./bearer-tokens";

/**
 * Members as staff's CSV import makes them: the app's own identity adapter's `inviteUser` against a stand-in (Cognito
 * mails the invitation with a temporary password), and the temporary password read back from the dev mailbox page as
 * the member would read it from the mail.
 */

export interface InvitedMember {
  sub: string;
  email: string;
}

/** A unique address invited through `inviteUser` (AdminCreateUser, DesiredDeliveryMediums EMAIL). */
export async function inviteMember(
  standInPort: number,
  label: string,
  locale: "ja" | "en" = "ja",
): Promise<InvitedMember> {
  const sdk = await connectToStandIn(standInPort);
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const identity = createIdentityProvider(
    {
      region: "ap-northeast-1",
      endpoint: `http://127.0.0.1:${standInPort}`,
      userPoolId: sdk.userPoolId,
      clientId: sdk.clientId,
    },
    sdk.cognito,
  );
  try {
    const sub = await identity.inviteUser({ email, attributes: { locale } });
    return { sub, email };
  } finally {
    sdk.destroy();
  }
}

function decodeHtml(html: string): string {
  return html
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");
}

const MAILBOX_WAIT_MS = 10_000;

/**
 * The temporary password of the newest invitation to `email` on the dev mailbox page (`readMailboxPage` fetches it),
 * waiting briefly for one other than `after` (a resent invitation's).
 */
export async function latestTemporaryPassword(
  readMailboxPage: () => Promise<string>,
  email: string,
  after = "",
): Promise<string> {
  const deadline = Date.now() + MAILBOX_WAIT_MS;
  for (;;) {
    const entry = (await readMailboxPage())
      .split('<li class="mailbox-entry"')
      .slice(1)
      .find((candidate) => candidate.includes(`>${email}<`) && candidate.includes("mailbox-code"));
    const password = decodeHtml(/<code class="mailbox-code">([^<]+)<\/code>/.exec(entry ?? "")?.[1] ?? "");
    if (password && password !== after) return password;
    if (Date.now() > deadline) throw new Error(`No new invitation for ${email} in the dev mailbox`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
