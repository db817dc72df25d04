import { apiJson } from "~/api/api-response.server";
import { buildOpenApiDocument } from "~/api/openapi";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/openapi";

/** The OpenAPI 3.1 document, generated from the same schemas the endpoints validate with. No token needed. */
export function loader({ context }: Route.LoaderArgs) {
  return apiJson(buildOpenApiDocument(servicesOf(context).config.origin), { locale: "en" });
}
