import { redirect } from "react-router";
import { pathFor } from "~/routing/route-table";
import { getLocale } from "~/middleware/i18n.server";
import type { Route } from "./+types/auth";

/** The auth entry: sign-in, keeping `to` and any other parameter. */
export function loader({ url, context }: Route.LoaderArgs) {
  throw redirect(`${pathFor("auth-sign-in", getLocale(context))}${url.search}`);
}
