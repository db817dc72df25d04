import { useRouteLoaderData } from "react-router";
import type { RootData } from "~/root.server";

/** The root loader's data (locale, theme, member, toast, links) from anywhere below the root. */
export function useRootData(): RootData {
  const rootData = useRouteLoaderData<RootData>("root");
  if (!rootData) throw new Error("useRootData used outside the root route");
  return rootData;
}
