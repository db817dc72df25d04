import type { RouterContextProvider } from "react-router";
import { submissionFailedContext } from "~/router-context.server";
import { sameOriginPath } from "~/routing/return-target";
import { getToastUtils } from "~/toast.server";

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Called by handleError for each unexpected error; only form posts are remembered. */
export function recordFailedSubmission(request: Request, context: Readonly<RouterContextProvider>): void {
  if (MUTATIONS.has(request.method.toUpperCase()))
    (context as RouterContextProvider).set(submissionFailedContext, true);
}

/**
 * A form post made with JavaScript (React Router's `.data` request) that failed with a 5xx: instead of the error
 * page, the browser is sent back to the page it is on, which shows the generic internal-error toast, so the member
 * keeps the page and what they typed. Only posts that threw count: an action that answered 503 itself (Cognito is
 * down) has already put its own message on the form. Without JavaScript the post is a document request, which
 * never comes here, and the 500 page stays the answer.
 */
export async function keepPageAfterFailedSubmission(
  response: Response,
  { request, context }: { request: Request; context: Readonly<RouterContextProvider> },
): Promise<Response> {
  if (response.status < 500 || !context.get(submissionFailedContext)) return response;
  return getToastUtils(context).redirectWithError(pageOfSubmission(request), "internalError");
}

/**
 * The page the form was on: the Referer when it is one of ours (a form may post to another page's action), else the
 * page whose action it is (the `.data` URL without its suffix and React Router's own parameters). Either is checked
 * like a sign-in's return target: a path such as "//evil.example/" is ours as a URL but another site as a redirect.
 */
function pageOfSubmission(request: Request): string {
  const url = new URL(request.url);
  const referer = sameOriginReferer(request, url.origin);
  if (referer) return sameOriginPath(`${referer.pathname}${referer.search}`) ?? "/";
  // "/auth/sign-in/_.data" is /auth/sign-in/'s, "/_root.data" the home page's.
  const pathname = url.pathname.replace(/(?:_root|_)?\.data$/, "") || "/";
  url.searchParams.delete("index");
  url.searchParams.delete("_routes");
  return sameOriginPath(`${pathname.endsWith("/") ? pathname : `${pathname}/`}${url.search}`) ?? "/";
}

function sameOriginReferer(request: Request, origin: string): URL | null {
  try {
    const referer = new URL(request.headers.get("Referer") ?? "");
    return referer.origin === origin ? referer : null;
  } catch {
    return null;
  }
}
