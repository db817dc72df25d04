import { JWKS_MAX_AGE_S, logoutTokenJwks } from "~/domain/events/logout-tokens.server";
import { servicesOf } from "~/router-context.server";
import type { Route } from "./+types/jwks";

/**
 * The public keys that verify our back-channel logout tokens (docs/sibling-events.md), for anyone: public keys only,
 * cacheable for JWKS_MAX_AGE_S, so a new key is published that long before it signs.
 */
export function loader({ context }: Route.LoaderArgs) {
  return Response.json(logoutTokenJwks(servicesOf(context).config.logoutTokenSigningKeys), {
    headers: { "Cache-Control": `public, max-age=${JWKS_MAX_AGE_S}` },
  });
}
