import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { expect, test } from "./fixtures";
import { expectNoOverflow } from "../support/layout-overflow";
import { loadOrCreateSiblingSecrets } from "../support/stand-ins/embedded-stack";
import { eventCaptureDirectory, readRunningReceiverUrl, webhookUrlOf } from "../support/stand-ins/event-capture";

/**
 * The preview server's event capture, as a developer meets it: webhooks arrive at the stand-in receiver for a sibling
 * service (sent here as the app sends them, signed with the service's secret from the server's data directory, and
 * once with a wrong one) and /__dev/events/ shows both, with their verdicts, on a phone's width.
 */
const dataDir = process.env.E2E_DATA_DIR!;

async function postWebhook(id: string, secret: string) {
  const receiverUrl = await readRunningReceiverUrl(eventCaptureDirectory(dataDir));
  const body = JSON.stringify({ id, type: "member.updated", sub: "e2e-member", sequence: 1, data: {} });
  return fetch(webhookUrlOf(receiverUrl!, "data"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, new Date(), body),
    },
    body,
  });
}

for (const prefix of ["", "/en"]) {
  test(`${prefix}/__dev/events/ shows a signed and a forged webhook with their verdicts at 375 px`, async ({
    page,
  }) => {
    const secrets = await loadOrCreateSiblingSecrets(dataDir);
    const signed = randomUUID();
    const forged = randomUUID();
    // Data's secret is the data directory's (the e2e server sets other services' own for the deliveries page).
    expect((await postWebhook(signed, secrets.webhookSecrets.data)).status).toBe(200);
    expect((await postWebhook(forged, secrets.webhookSecrets.shop)).status).toBe(400);

    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${prefix}/__dev/events/`);
    const data = page.getByRole("region", { name: prefix ? "Data" : "データサービス", exact: true });
    const signedEntry = data.getByRole("listitem").filter({ hasText: signed });
    const forgedEntry = data.getByRole("listitem").filter({ hasText: forged });
    await expect(signedEntry).toHaveAttribute("data-verdict", "verified");
    await expect(signedEntry).toContainText(prefix ? "verified" : "確認済み");
    await expect(forgedEntry).toHaveAttribute("data-verdict", "rejected");
    await expect(forgedEntry).toContainText("No matching signature found");
    // Newest first.
    const ids = await data.getByRole("listitem").allTextContents();
    expect(ids.findIndex((text) => text.includes(forged))).toBeLessThan(ids.findIndex((text) => text.includes(signed)));
    // Headers and body open, signatures and all, still fit the phone's width.
    for (const summary of await forgedEntry.locator("summary").all()) await summary.click();
    await expect(forgedEntry.getByText(`webhook-id: ${forged}`)).toBeVisible();
    await expectNoOverflow(page, `${prefix}/__dev/events/`);
  });
}
