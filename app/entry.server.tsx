import { Writable } from "node:stream";
import { renderToPipeableStream } from "react-dom/server";
import {
  type EntryContext,
  type HandleDataRequestFunction,
  type HandleErrorFunction,
  type RouterContextProvider,
  ServerRouter,
  isRouteErrorResponse,
} from "react-router";
import { NonceContext } from "./components/nonce";
import { keepPageAfterFailedSubmission, recordFailedSubmission } from "./errors/failed-submission.server";
import { logger } from "./integrations/logger.server";
import { requestInfoContext } from "./router-context.server";

// The HTTP server builds the services once from this module so that they share the routes' module instances
// (its own copies of the app's classes would fail the routes' instanceof checks).
export { createAppServices } from "./composition-root.server";
// The HTTP layer asks it before reading a body over the ordinary limit (app/server/app-context.ts).
export { largeBodyRefusal } from "./large-body-gate.server";
// The HTTP server starts the new-password rule's thread at its own start, in the routes' copy of its module.
export { preparePasswordStrength } from "./domain/account/password-strength.server";

export const streamTimeout = 5_000;

const DOCUMENT_CONTENT_TYPE = "text/html; charset=utf-8";

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  // A HEAD gets the headers a GET would, without rendering the document.
  if (request.method.toUpperCase() === "HEAD") {
    responseHeaders.set("Content-Type", DOCUMENT_CONTENT_TYPE);
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.get(requestInfoContext).nonce || undefined;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);

    // The whole document at once, for people and crawlers alike: no loader defers data, so the rest of a page is
    // ready a moment after its shell, and a page sent whole takes one write and one gzip call, where streaming it
    // through a web stream would pay for many small writes and gzip calls on every page view.
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce ?? ""}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          clearTimeout(timeoutId);
          timeoutId = undefined;
          const chunks: Buffer[] = [];
          const document = new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
            final(callback) {
              responseHeaders.set("Content-Type", DOCUMENT_CONTENT_TYPE);
              resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: responseStatusCode }));
              callback();
            },
          });
          pipe(document);
        },
        onShellError(error: unknown) {
          clearTimeout(timeoutId);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) logger.error({ err: error }, "error while rendering a page");
        },
      },
    );
  });
}

/** Unexpected loader/action/render errors, logged once with the request id; aborted requests are not errors. */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  const requestId = (context as RouterContextProvider).get(requestInfoContext).requestId;
  logger.error({ err: error, requestId }, "unhandled error in a route");
  recordFailedSubmission(request, context as RouterContextProvider);
};

/** Every `.data` response (client-side navigations and form posts made with JavaScript) passes through here. */
export const handleDataRequest: HandleDataRequestFunction = (response, { request, context }) =>
  keepPageAfterFailedSubmission(response, { request, context: context as RouterContextProvider });
