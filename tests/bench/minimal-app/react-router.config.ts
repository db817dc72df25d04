import type { Config } from "@react-router/dev/config";

/**
 * The benchmark's baseline: the smallest server-rendered React Router page, with the same middleware flag as the
 * app so both run the same request pipeline. The build goes to ./build, which .gitignore and the lint's ignores
 * name; it stays inside the repo so the server bundle's bare imports (react, react-router) resolve to
 * the repo's node_modules, the same copies the express adapter uses.
 */
export default {
  ssr: true,
  future: { v8_middleware: true },
} satisfies Config;
