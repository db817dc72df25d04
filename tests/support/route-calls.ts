import { RouterContextProvider } from "react-router";
import { i18nextMiddleware } from "~/middleware/i18n.server";
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
    args: (request: Request, context: RouterContextProvider, params: Record<string, string> = {}) =>
      ({ request, context, params }) as never,
  };
}

/** What a loader or action threw or returned, as the HTTP server would answer: the Response, or its data reply. */
export async function settle<T>(call: Promise<T>): Promise<T | Response> {
  return call.catch((thrown: unknown) => {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  });
}
