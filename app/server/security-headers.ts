import type { Config } from "~/config.server";

export interface SecurityHeaders {
  /** A page's: its CSP lets scripts run from our origin or with this response's nonce. */
  forPage(nonce: string): Record<string, string>;
  /** The member API's JSON: nothing in it may run, load or be framed, so its CSP allows nothing at all. */
  readonly forApi: Readonly<Record<string, string>>;
}

/**
 * Headers every response carries, worked out once per configuration: only the nonce
 * changes from page to page. Development relaxes the pages' CSP because Vite's dev client injects inline code
 * and styles.
 */
export function securityHeaders(config: Config): SecurityHeaders {
  const siblingOrigins = Object.values(config.services)
    .map((service) => service.origin)
    .filter((origin): origin is string => Boolean(origin))
    .map((origin) => new URL(origin).origin);
  const development = config.mode === "dev";
  const secure = new URL(config.origin).protocol === "https:";
  const pageDirectives = (nonce: string) => [
    "default-src 'self'",
    development ? "script-src 'self' 'unsafe-inline'" : `script-src 'self' 'nonce-${nonce}'`,
    development ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    development ? "connect-src 'self' ws: wss:" : "connect-src 'self'",
    // Chrome applies form-action to the redirect after a post too: sign-in may return members to a sibling.
    `form-action 'self' ${siblingOrigins.join(" ")}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
    ...(secure ? ["upgrade-insecure-requests"] : []),
  ];
  const common = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    ...(config.isProduction && secure ? { "Strict-Transport-Security": "max-age=63072000; includeSubDomains" } : {}),
  };
  // The page policy joined once, in pieces around its nonce (none in development): per request only the nonce is
  // put in.
  const NONCE_MARK = "\0";
  const pagePolicyPieces = pageDirectives(NONCE_MARK).join("; ").split(NONCE_MARK);
  return {
    forPage: (nonce) => ({ "Content-Security-Policy": pagePolicyPieces.join(nonce), ...common }),
    forApi: Object.freeze({ "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'", ...common }),
  };
}

/**
 * The path as it may appear in logs: e-mail change, sign-in alert and newsletter unsubscribe links carry a secret
 * token in the path, so it is masked. Query strings are never logged at all.
 */
export function pathForLog(path: string): string {
  return path.replace(
    /^((?:\/en)?\/(?:(?:api\/)?email-updates?|sign-in-alert|newsletter\/unsubscribe)\/)[^/]+/,
    "$1[token]",
  );
}
