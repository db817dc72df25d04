import { RouterContextProvider } from "react-router";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import { memberContext, requestInfoContext, servicesContext } from "~/router-context.server";
import type { AppServices } from "~/services.server";

/**
 * Route modules' loaders and actions called directly, as the HTTP server would call them: a request with the
 * browser's cookies, and a router context holding the services, the request's info, its language and its member.
 */
export function routeCalls(origin: string, services: () => AppServices) {
  const withCookie = (cookie: string | undefined): Record<string, string> => (cookie ? { Cookie: cookie } : {});
  return {
    get: (path: string, cookie?: string) => new Request(`${origin}${path}`, { headers: withCookie(cookie) }),
    post: (path: string, fields: Record<string, string>, cookie?: string) =>
      new Request(`${origin}${path}`, {
        method: "POST",
        body: new URLSearchParams(fields),
        headers: withCookie(cookie),
      }),
    async context(request: Request, member: SignedInMember | null) {
      const context = new RouterContextProvider();
      context.set(servicesContext, services());
      context.set(requestInfoContext, { requestId: "route-calls", nonce: "", clientIp: "192.0.2.20" });
      context.set(memberContext, member);
      await i18nextMiddleware(
        { request, context, params: {}, unstable_pattern: "" } as never,
        async () => new Response(),
      );
      return context;
    },
    // React Router hands handlers the page's URL beside the request (its `future.v8_passThroughRequests`).
    args: (request: Request, context: RouterContextProvider, params: Record<string, string> = {}) =>
      ({ request, url: new URL(request.url), context, params }) as never,
  };
}

/** A thrown `data(…, init)`: React Router answers it with its status, as a returned one. */
type ThrownData = { type: "DataWithResponseInit"; data: unknown; init: ResponseInit | null };

/**
 * What a loader or action threw or returned, as the HTTP server would answer: its redirect or Response, a thrown
 * `data()` reply, or what it returned (`call`: its promise, or a function calling it). Anything else thrown (a fault) stays thrown.
 */
export async function settle<T>(call: Promise<T> | (() => T)): Promise<T | Response | ThrownData> {
  try {
    // A synchronous loader throws as it is called: a function defers the call to here.
    return await (typeof call === "function" ? call() : call);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    if ((thrown as ThrownData | null)?.type === "DataWithResponseInit") return thrown as ThrownData;
    throw thrown;
  }
}
