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
  },
} satisfies Config;
