/**
 * A browser's cookies as the tests carry them from one request to the next: each Set-Cookie of an answer sets or
 * replaces its cookie, a cleared one removes it, and what is left goes back as the Cookie header. The one place for
 * it, whether the answers are fetch Responses, route modules' replies (session-http.ts, the *.db tests) or raw HTTP
 * answers (page-client.ts).
 */

/** Cookies by name (name → value). */
export type CookieJar = Map<string, string>;

/** Anything that carries Set-Cookie headers: a fetch Response, or `{ headers: new Headers(reply.init?.headers) }`. */
type Answer = { headers: Headers };

/** The `name=value` a browser sends back for a Set-Cookie line. */
export const pairOf = (setCookie: string): string => setCookie.split(";")[0]!;

/** Whether a Set-Cookie line removes its cookie: the app clears with an empty value and Max-Age=0. */
export const isCleared = (setCookie: string): boolean =>
  /;\s*Max-Age=0(;|$)/i.test(setCookie) || pairOf(setCookie).endsWith("=");

/** The Set-Cookie line an answer has for this cookie, if any. */
export function setCookieNamed(answer: Answer, name: string): string | undefined {
  return answer.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
}

/** The jar after these Set-Cookie lines: each sets or replaces its cookie, or removes it when cleared. */
export function withSetCookieLines(jar: CookieJar, setCookies: readonly string[]): CookieJar {
  const next = new Map(jar);
  for (const setCookie of setCookies) {
    const [name, value] = nameAndValue(pairOf(setCookie));
    if (isCleared(setCookie)) next.delete(name);
    else next.set(name, value);
  }
  return next;
}

/** The jar a Cookie header holds. */
export function jarOf(cookie: string): CookieJar {
  return new Map(
    cookie
      .split(";")
      .filter((pair) => pair.trim())
      .map(nameAndValue),
  );
}

/** The Cookie header a browser sends with this jar. */
export function cookieHeaderOf(jar: CookieJar): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** The Cookie header a browser that sent `cookie` sends after these answers. */
export function cookieHeaderAfter(cookie: string, ...answers: Answer[]): string {
  const setCookies = answers.flatMap((answer) => answer.headers.getSetCookie());
  return cookieHeaderOf(withSetCookieLines(jarOf(cookie), setCookies));
}

/** The Cookie header a new browser sends after these answers: every cookie they set, minus the ones they cleared. */
export function cookieHeader(...answers: Answer[]): string {
  return cookieHeaderAfter("", ...answers);
}

function nameAndValue(pair: string): [string, string] {
  const equals = pair.indexOf("=");
  return [pair.slice(0, equals).trim(), pair.slice(equals + 1).trim()];
}
