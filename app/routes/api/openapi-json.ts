import { apiJson } from "~/api/api-response.server";
import { buildOpenApiDocument } from "~/api/openapi";
import { getConfig } from "~/config.server";

/** The OpenAPI 3.1 document, generated from the same schemas the endpoints validate with. No token needed. */
export function loader() {
  return apiJson(buildOpenApiDocument(getConfig().origin), { locale: "en" });
}
