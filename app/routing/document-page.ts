import type { UIMatch } from "react-router";

/**
 * The `handle` of a page that is a document to read and nothing else: the terms, the privacy policy, the API
 * reference. Such a page is served without React Router's scripts: its links are plain links and its menus are
 * `<details>`, which work without JavaScript like every page of the site, so a member who opens the policy from a
 * mail on a slow phone connection gets the text without a page's worth of JavaScript first (and the API reference
 * is not sent a second time as hydration data). Reached by a client-side navigation from another page, it renders in
 * the browser like any page.
 */
export const DOCUMENT_PAGE = { documentPage: true } as const;

function isDocumentPageHandle(handle: unknown): boolean {
  return typeof handle === "object" && handle !== null && (handle as { documentPage?: unknown }).documentPage === true;
}

/**
 * Whether the document being rendered loads the app's JavaScript. In the browser it already has: a render there is
 * a client-side navigation, whose scroll handling and scripts must stay mounted whatever page it leads to.
 */
export function documentLoadsJavaScript(matches: readonly UIMatch[]): boolean {
  if (typeof document !== "undefined") return true;
  return !matches.some((match) => isDocumentPageHandle(match.handle));
}
