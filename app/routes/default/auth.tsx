import { redirect } from "react-router";
import { pathFor } from "~/routing/route-table";
import { getLocale } from "~/i18n/i18n-middleware.server";
import type { Route } from "./+types/auth";

/** The auth entry: sign-in, keeping `to` and any other parameter. */
export function loader({ url, context }: Route.LoaderArgs) {
  throw redirect(`${pathFor("auth-sign-in", getLocale(context))}${url.search}`);
}
