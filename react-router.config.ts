import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // remix-i18next 7.5's middleware API needs the v8 middleware flag (STACK.md trap 1).
  future: {
    v8_middleware: true,
    // Our paths end with "/": data requests must keep the slash (/x/_.data) or middleware would see /x.
    v8_trailingSlashAwareDataRequests: true,
  },
} satisfies Config;
