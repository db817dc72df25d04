import { type RouterContextProvider, data } from "react-router";
import { sharedContext } from "~/server/request-context";
import { servicesOf } from "~/services.server";

/**
 * Internal pages (demo, design-debug style guide, dev mailbox) do not exist in production: 404.
 * Called from loaders rather than as middleware: a middleware that throws keeps the root loader from running
 * (remix-run/react-router#14416), and the localized 404 page needs the root's data.
 */
export function requireDevTools(context: Readonly<RouterContextProvider>): void {
  if (!servicesOf(context).config.devToolsEnabled) throw data(null, { status: 404 });
}

/** One captured mail, or one code the Cognito stand-in would have sent. */
export interface MailboxEntry {
  id: string;
  receivedAt: string;
  kind: "mail" | "code";
  to: string[];
  subject: string;
  text: string;
  html?: string;
  /** For stand-in codes: the code itself, so tests and developers need not parse the message. */
  code?: string;
}

/** The development mailbox, newest first. */
export interface DevMailbox {
  entries(): Promise<MailboxEntry[]>;
}

/**
 * The mailbox lives with the stand-ins in the tests' tree: the dev and preview entry (app/server/dev-entry.ts) hands
 * it to every request; production has none.
 */
export const devMailboxContext = sharedContext<DevMailbox | null>("dev-mailbox", null);
