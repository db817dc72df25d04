import type { Locale } from "~/i18n/locales";
import { type RouteName, pathFor } from "~/routing/route-table";
import type { RootData } from "~/root.server";

/** A navigation entry: its label key under common's "nav." and its target. */
export type NavItem = {
  label: "signUp" | "logIn" | "myProfile" | "emailEdit" | "devices" | "security" | "passwordEdit" | "myData";
  to: string;
};

/** The account pages the menus offer a member, with their label keys. */
const MEMBER_PAGES: readonly (readonly [NavItem["label"], RouteName])[] = [
  ["myProfile", "my-profile"],
  ["emailEdit", "my-email-edit"],
  ["devices", "my-devices"],
  ["security", "my-security"],
  ["passwordEdit", "my-password-edit"],
  ["myData", "my-data"],
];

/**
 * What the menus offer: sign up and log in to visitors, the account pages to members. Cancellation is kept apart
 * from the other account links (account-links.tsx) so that it is never clicked by mistake.
 */
export function getNavItems(signedIn: boolean, locale: Locale): NavItem[] {
  if (!signedIn) {
    return [
      { label: "signUp", to: pathFor("auth-sign-up", locale) },
      { label: "logIn", to: pathFor("auth-sign-in", locale) },
    ];
  }
  return MEMBER_PAGES.map(([label, route]) => ({ label, to: pathFor(route, locale) }));
}

const SIBLING_SERVICES = ["data", "compe", "online", "shop"] as const;

/** The sibling services to link to; one without a configured origin (e.g. in development) is left out. */
export function getSiblingLinks(links: RootData["links"]) {
  return SIBLING_SERVICES.flatMap((service) => {
    const origin = links.services[service];
    return origin ? [{ service, origin }] : [];
  });
}
