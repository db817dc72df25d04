import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The root's and the layouts' middleware (locale, session, canonical URLs) needs the v8 middleware flag.
  future: {
    v8_middleware: true,
    // Our paths end with "/": data requests must keep the slash (/x/_.data) or middleware would see /x.
    v8_trailingSlashAwareDataRequests: true,
    // Every handler gets the request as it came, not a copy of it per handler: the page's URL is the handlers' `url`
    // argument (app/routing/page-request.ts).
    v8_passThroughRequests: true,
    // No route module exports a clientLoader, clientAction, clientMiddleware or HydrateFallback, so this splits no
    // chunk today; it keeps one added later out of its route's main chunk, as React Router 8 will.
    v8_splitRouteModules: true,
    // Not yet: under the Environment API React Router takes the browser build's output options from
    // `environments.client`, while vite.config.ts sets its chunk groups and the browser-only alias to React Router's
    // production build per build (`isSsrBuild`); moving them is a change of its own, which React Router 8 requires
    // (remix-run/react-router#15077). Said rather than left unset, which prints the flag's notice at every start.
    v8_viteEnvironmentApi: false,
  },
} satisfies Config;
