import { type RouterContext, RouterContextProvider, type ServerBuild } from "react-router";
import type { Database } from "~db/client.server";
import type { createAppServices } from "~/composition-root.server";
import type { Config } from "~/config.server";
import {
  type DevToolSources,
  devEventCaptureContext,
  devMailboxContext,
  type LargeBodyRefusal,
  type RequestInfo,
  requestInfoContext,
  servicesContext,
} from "~/router-context.server";
import type { AppServices } from "~/services.server";

/** The React Router build, or development's loader of the latest one. */
export type Build = ServerBuild | (() => Promise<ServerBuild>);

/** What app/entry.server.tsx exports besides the renderer. */
interface AppEntryModule {
  createAppServices: typeof createAppServices;
  largeBodyRefusal(
    context: RouterContextProvider,
    request: Request,
    lane: "page" | "api",
  ): Promise<LargeBodyRefusal | null>;
  preparePasswordStrength(): void;
}

const entryOf = async (build: Build) =>
  (typeof build === "function" ? await build() : build).entry.module as unknown as AppEntryModule;

/**
 * Starts what the routes should not wait for on first use, in the build's own module instances: the new-password
 * rule's thread, which builds its dictionaries while the server starts (app/domain/account/password-strength.server.ts).
 */
export async function prepareBuild(build: Build): Promise<void> {
  (await entryOf(build)).preparePasswordStrength();
}

/** Makes the router context of one request: what the HTTP layer learned about it, and the app's services. */
export type RequestContextFactory = (requestInfo: RequestInfo) => Promise<RouterContextProvider>;

/**
 * The services are built once per loaded build, on its first request (once in production; again after a development
 * reload) through the build's own entry module, so that they are made of the same module instances as the routes.
 * The dev mailbox and event capture (dev and preview only) go under their shared keys.
 */
export function requestContextFactory(
  build: Build,
  config: Config,
  db: Database,
  devTools?: DevToolSources,
): RequestContextFactory {
  const servicesByEntry = new WeakMap<object, AppServices>();
  return async (requestInfo) => {
    const entry = await entryOf(build);
    let services = servicesByEntry.get(entry);
    if (!services) {
      services = entry.createAppServices(config, db);
      servicesByEntry.set(entry, services);
    }
    const values = new Map<RouterContext<unknown>, unknown>([
      [requestInfoContext as RouterContext<unknown>, requestInfo],
      [servicesContext as RouterContext<unknown>, services],
    ]);
    if (devTools) {
      values.set(devMailboxContext as RouterContext<unknown>, devTools.mailbox);
      values.set(devEventCaptureContext as RouterContext<unknown>, devTools.events);
    }
    return new RouterContextProvider(values);
  };
}

/** Asks the build whether a request may send a body over the ordinary limit, from its head alone. */
export type LargeBodyGate = (
  requestInfo: RequestInfo,
  request: Request,
  lane: "page" | "api",
) => Promise<LargeBodyRefusal | null>;

/** The gate through the build's own entry module, in the router context a route would get. */
export function largeBodyGateOf(build: Build, contextFor: RequestContextFactory): LargeBodyGate {
  return async (requestInfo, request, lane) => {
    const entry = await entryOf(build);
    return entry.largeBodyRefusal(await contextFor(requestInfo), request, lane);
  };
}
