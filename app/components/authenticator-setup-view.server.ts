import QRCode from "qrcode";
import { authenticatorKeyUri, groupedKey } from "~/domain/security/two-step-verification.server";
import type { AuthenticatorSetupView } from "./authenticator-setup-form";

/**
 * The secret as a QR code drawn here (SVG, no JavaScript) and as text to type: the issuer (the app's host) and the
 * member's address name the entry in their app. The members' security page and the staff sign-in's first visit.
 */
export async function authenticatorSetupView(input: {
  origin: string;
  email: string;
  secret: string;
}): Promise<AuthenticatorSetupView> {
  const keyUri = authenticatorKeyUri({ issuer: new URL(input.origin).host, email: input.email, secret: input.secret });
  return {
    qrSvg: await QRCode.toString(keyUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 }),
    key: groupedKey(input.secret),
  };
}
