import type { Page } from "@playwright/test";

/**
 * Gives the page an authenticator of its own through the Chrome DevTools Protocol: a platform passkey provider that
 * verifies the user (as Touch ID or Windows Hello), so the browser makes and uses real passkeys, which the Cognito
 * stand-in checks.
 */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
}
