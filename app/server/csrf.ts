const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

interface HeaderSource {
  get(name: string): string | null | undefined;
}

/**
 * Whether a state-changing request may proceed: browsers say where a request comes from (Sec-Fetch-Site, Origin),
 * and only our own origin may post with our cookies. Sibling subdomains are refused too: SameSite=Lax treats them
 * as same-site, which is exactly why this check exists. Clients that send neither header (curl, server-to-server)
 * carry no ambient browser cookies to abuse. Checked in the HTTP layer, before React Router (whose own origin
 * check would answer 400 and log an error), so every route, resource routes included, is covered.
 */
export function isAllowedOrigin(method: string, headers: HeaderSource, ownOrigin: string): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  const origin = headers.get("Origin");
  // An Origin must be our configured one even when Sec-Fetch-Site says same-origin (a page opened under another
  // name for this server): React Router compares it with the request URL, which the page lane builds from our
  // origin, and would otherwise refuse the post itself with a 400 and an error in the log.
  const originIsOurs = origin === null || origin === undefined || origin === ownOrigin;
  const fetchSite = headers.get("Sec-Fetch-Site");
  if (fetchSite) return (fetchSite === "same-origin" || fetchSite === "none") && originIsOurs;
  return originIsOurs;
}
