import { renderToReadableStream } from "react-dom/server";
import { type EntryContext, ServerRouter } from "react-router";

/**
 * React Router's default server entry needs `@react-router/node` among the project's own dependencies, which the app
 * does without (its entry streams through `@react-router/express`): this one renders the page as React's web
 * stream, nothing else.
 */
export default async function handleRequest(request: Request, status: number, headers: Headers, context: EntryContext) {
  const body = await renderToReadableStream(<ServerRouter context={context} url={request.url} />, {
    signal: request.signal,
  });
  headers.set("Content-Type", "text/html; charset=utf-8");
  return new Response(body, { status, headers });
}
