/**
 * The same URL without its empty query parameters, or null when it has none. A GET form submitted without
 * JavaScript sends every field, empty or not; the staff pages redirect to the short URL so that every query has one
 * bookmarkable address (spec section 2: empty parameters are omitted).
 */
export function withoutEmptyParams(url: URL): string | null {
  const given = [...url.searchParams].filter(([, value]) => value.trim() !== "");
  if (given.length === [...url.searchParams].length) return null;
  const query = new URLSearchParams(given).toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}
