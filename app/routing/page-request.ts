/**
 * A page request as loaders, actions and middleware get it: the request itself, for its method, headers, cookies and
 * body, and `url`, the page's URL. React Router hands every handler the request as it came (its
 * `future.v8_passThroughRequests`, which spares a copy of the request per handler), so a data request's `request.url`
 * keeps its `.data` suffix and React Router's own parameters: the page's path and query are read from `url`.
 */
export interface PageRequest {
  request: Request;
  url: URL;
}
