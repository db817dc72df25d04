import { type RouterContextProvider, data } from "react-router";
import { servicesOf } from "~/router-context.server";

/**
 * Internal pages (demo, design-debug style guide, dev mailbox) do not exist in production: 404.
 * Called from loaders rather than as middleware: a middleware that throws keeps the root loader from running
 * (remix-run/react-router#14416), and the localized 404 page needs the root's data.
 */
export function requireDevTools(context: Readonly<RouterContextProvider>): void {
  if (!servicesOf(context).config.devToolsEnabled) throw data(null, { status: 404 });
}
