/**
 * The downloads page's forms call the language `language`: `?locale=` is the site's own language switch, which the
 * canonical-URL middleware turns into a redirect (dropping the value), as on the member list. The schemas and the
 * admin API keep `locale`.
 */
export const DOWNLOAD_PAGE_PARAMS: Readonly<Record<string, string>> = { locale: "language" };

/** A downloads page URL's parameters under the schemas' names. */
export function exportParamsOfPage(pageParams: URLSearchParams): URLSearchParams {
  const schemaName = Object.fromEntries(Object.entries(DOWNLOAD_PAGE_PARAMS).map(([field, param]) => [param, field]));
  return new URLSearchParams([...pageParams].map(([name, value]) => [schemaName[name] ?? name, value]));
}
