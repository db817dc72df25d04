/** The member API's prefix: resource routes that answer JSON, read no cookies and take bearer tokens instead. */
const API_PREFIX = "/api/";

export function isApiPath(pathname: string): boolean {
  return pathname.startsWith(API_PREFIX) || pathname === "/api";
}

/** Documents at the addresses RFC 8615 reserves (the logout tokens' JWKS): no page, no language, no session. */
export function isWellKnownPath(pathname: string): boolean {
  return pathname.startsWith("/.well-known/");
}
