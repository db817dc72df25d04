import type { Locale } from "~/i18n/locales";
import { pathForRouteName } from "./route-table";

const PROBE_ORIGIN = "http://return-target.invalid";
/** Percent-decoding rounds checked for a hidden "//" or "\": more than any legitimate path needs. */
const MAX_DECODING_ROUNDS = 3;
/** Control characters and backslashes are never part of a path we produce; browsers read "\" as "/". */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const NEVER_IN_A_PATH = /[\u0000-\u001f\u007f\\]/;

/**
 * Where to send a member after signing in: a route name ("my-profile"), a path on this site, or a
 * page of an allowlisted sibling origin. Anything else (`//evil`, `/\evil`, `/.//evil`, `javascript:`, encoded
 * tricks) is refused and the caller falls back to its default, so the sign-in page cannot be used as an open redirect.
 */
export function resolveReturnTarget(
  to: string | null | undefined,
  locale: Locale,
  allowedOrigins: readonly string[],
): string | null {
  if (!to) return null;
  const routePath = pathForRouteName(to, locale);
  if (routePath) return routePath;
  if (to.startsWith("/")) return sameOriginPath(to);
  if (NEVER_IN_A_PATH.test(to)) return null;
  try {
    const url = new URL(to);
    if (url.protocol !== "https:" && url.protocol !== "http:") return null;
    if (url.username || url.password) return null;
    return allowedOrigins.includes(url.origin) ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The path a browser really goes to, if it is ours: checked after URL normalisation (dot segments resolved, "%2e"
 * read as ".", tabs and newlines dropped), because "/.//evil" only becomes "//evil", another site, there. Each
 * percent-decoded form is checked the same way, so that no later decoding (a proxy's, a router's) can turn the
 * path into another site either.
 */
export function sameOriginPath(to: string): string | null {
  let form = to;
  for (let round = 0; ; round++) {
    if (NEVER_IN_A_PATH.test(form) || !staysOnOurOrigin(form)) return null;
    if (round === MAX_DECODING_ROUNDS) break;
    let decoded: string;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      // Malformed escapes in the target itself; a "%" that decoding revealed is only text.
      if (round === 0) return null;
      break;
    }
    if (decoded === form) break;
    form = decoded;
  }
  const url = new URL(to, PROBE_ORIGIN);
  return `${url.pathname}${url.search}${url.hash}`;
}

function staysOnOurOrigin(path: string): boolean {
  try {
    const url = new URL(path, PROBE_ORIGIN);
    return url.origin === PROBE_ORIGIN && !url.pathname.startsWith("//");
  } catch {
    return false;
  }
}
