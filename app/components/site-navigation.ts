import { type Locale, pathnameForLocale } from "~/i18n/locales";
import type { RootData } from "~/root.server";

/** A navigation entry: its label key under common's "nav." and its target. */
export type NavItem = {
  label: "signUp" | "logIn" | "myProfile" | "emailEdit" | "devices" | "security" | "passwordEdit";
  to: string;
};

// Literal paths because the auth and account pages are not in the route table yet; these paths are fixed.
export function getSignUpPath(locale: Locale): string {
  return pathnameForLocale("/auth/sign-up/", locale);
}

export function getSignInPath(locale: Locale): string {
  return pathnameForLocale("/auth/sign-in/", locale);
}

export function getSignOutPath(locale: Locale): string {
  return pathnameForLocale("/auth/sign-out/", locale);
}

/** Cancellation is kept apart from the other account links so that it is never clicked by mistake. */
export function getWithdrawalPath(locale: Locale): string {
  return pathnameForLocale("/my/withdrawal/", locale);
}

const MEMBER_PAGES = [
  { label: "myProfile", path: "/my/profile/" },
  { label: "emailEdit", path: "/my/email/edit/" },
  { label: "devices", path: "/my/devices/" },
  { label: "security", path: "/my/security/" },
  { label: "passwordEdit", path: "/my/password/edit/" },
] as const;

/** What the menus offer: sign up and log in to visitors, the account pages to members. */
export function getNavItems(signedIn: boolean, locale: Locale): NavItem[] {
  if (!signedIn) {
    return [
      { label: "signUp", to: getSignUpPath(locale) },
      { label: "logIn", to: getSignInPath(locale) },
    ];
  }
  return MEMBER_PAGES.map((page) => ({ label: page.label, to: pathnameForLocale(page.path, locale) }));
}

const SIBLING_SERVICES = ["data", "compe", "online", "shop"] as const;

/** The sibling services to link to; one without a configured origin (e.g. in development) is left out. */
export function getSiblingLinks(links: RootData["links"]) {
  return SIBLING_SERVICES.flatMap((service) => {
    const origin = links.services[service];
    return origin ? [{ service, origin }] : [];
  });
}
