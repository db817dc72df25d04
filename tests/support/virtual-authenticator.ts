import type { Page } from "@playwright/test";

/** The page's virtual authenticator, for a test that needs it to stop answering. */
export interface VirtualAuthenticator {
  /**
   * Stops the authenticator from confirming the user's presence, so requests wait as they would for a member who has
   * not touched the sensor yet: a conditional request (passkey autofill) then stays open instead of being answered
   * with the device's passkey, which Chromium's virtual authenticator does now and then on its own.
   */
  stopAnswering(): Promise<void>;
}

/**
 * Gives the page an authenticator of its own through the Chrome DevTools Protocol: a platform passkey provider that
 * verifies the user (as Touch ID or Windows Hello), so the browser makes and uses real passkeys, which the Cognito
 * stand-in checks.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    stopAnswering: async () => {
      await cdp.send("WebAuthn.setAutomaticPresenceSimulation", { authenticatorId, enabled: false });
    },
  };
}
