import type { Locale } from "~/i18n/locales";
import { pathForRouteName } from "./route-table";

const PROBE_ORIGIN = "http://return-target.invalid";

/**
 * Where to send a member after signing in: a route name from the spec ("my-profile"), a path on this site, or a
 * page of an allowlisted sibling origin. Anything else (`//evil`, `/\evil`, `javascript:`, encoded tricks) is
 * refused and the caller falls back to its default (SECURITY.md item 9).
 */
export function resolveReturnTarget(
  to: string | null | undefined,
  locale: Locale,
  allowedOrigins: readonly string[],
): string | null {
  if (!to) return null;
  const routePath = pathForRouteName(to, locale);
  if (routePath) return routePath;
  // Control characters and backslashes are never part of a path we produce; browsers read "\" as "/".
  if (/[\u0000-\u001f\u007f\\]/.test(to)) return null;
  let decoded = to;
  try {
    decoded = decodeURIComponent(to);
  } catch {
    return null;
  }
  if (/[\u0000-\u001f\u007f\\]/.test(decoded)) return null;

  if (to.startsWith("/")) {
    if (to.startsWith("//") || decoded.startsWith("//")) return null;
    const url = new URL(to, PROBE_ORIGIN);
    return url.origin === PROBE_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : null;
  }
  try {
    const url = new URL(to);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (url.username || url.password) return null;
    return allowedOrigins.includes(url.origin) ? url.href : null;
  } catch {
    return null;
  }
}

