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
  const fetchSite = headers.get("Sec-Fetch-Site");
  if (fetchSite) return fetchSite === "same-origin" || fetchSite === "none";
  const origin = headers.get("Origin");
  return origin === null || origin === undefined || origin === ownOrigin;
}
