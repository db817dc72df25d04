import { reactRouter } from "@react-router/dev/vite";
import { createRequire } from "node:module";
import path from "node:path";
import { type Alias, type UserConfig, defineConfig } from "vite";

// Of i18n/, only the lookup hook and the locale list: prefecture-names would bring Japan's 47 into every page.
const FRAME_MODULES =
  /\/app\/(root\.tsx|layouts\/(default|member)-layout|i18n\/(use-translation|locales)\.ts|routing\/)|\/app\/components\/(page-frame|site-|user-menu|language-switch|toast-region|app-link|icons|use-|nonce|error-page)/;

/**
 * `npm run build:server` (`vite build --mode http-server`): the HTTP server and the command-line jobs compiled to
 * plain JavaScript in build/http-server/, so production runs them with `node` and no TypeScript loader; also the
 * new-password rule's thread, which the pages start from there. Packages stay external; the pages are React Router's
 * own build (build/server/index.js), which the server loads at start.
 */
const httpServerBuild: UserConfig = {
  resolve: { tsconfigPaths: true },
  publicDir: false,
  build: {
    ssr: true,
    target: "node20",
    outDir: "build/http-server",
    emptyOutDir: true,
    sourcemap: true,
    rolldownOptions: {
      input: {
        main: "app/server/main.ts",
        "start-server": "app/server/start-server.ts",
        purge: "app/commands/purge.ts",
        "reconcile-directory": "app/commands/reconcile-directory.ts",
        "legacy-import": "app/commands/legacy-import.ts",
        migrate: "app/commands/migrate.ts",
        "password-estimator": "app/domain/account/password-estimator.worker.ts",
      },
      output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js" },
    },
  },
};

/**
 * `vite build --mode lambdas` (the second half of `npm run build:server`): the user pool's pre token generation and
 * custom message triggers, each one file that Lambda runs as it is (docs/deployment.md), into build/http-server/
 * beside the server. A build of their own: built with the server, code the server shares with a trigger (the scope's
 * name) would go into a shared chunk and leave the trigger's file a bare re-export of it.
 */
const lambdaBuild: UserConfig = {
  resolve: { tsconfigPaths: true },
  publicDir: false,
  build: {
    ssr: true,
    target: "node22",
    outDir: "build/http-server",
    emptyOutDir: false,
    rolldownOptions: {
      input: {
        "pre-token-generation": "app/integrations/cognito/pre-token-generation.ts",
        "custom-message": "app/integrations/cognito/custom-message.ts",
      },
      output: { entryFileNames: "[name].js", chunkFileNames: "lambda-chunks/[name]-[hash].js" },
    },
  },
};

const appBuild: UserConfig = {
  // Vitest must not load the React Router plugin (STACK.md trap 3); it has its own vitest.config.ts.
  plugins: [reactRouter()],
  resolve: { tsconfigPaths: true },
  /*
   * The dev server pre-bundles, as it starts, every package the browser imports besides the React and React Router
   * ones React Router's plugin names, and discovers none later: a package found after the start makes Vite bundle
   * again and answer the page's other imports 504 "Outdated Optimize Dep", then reload. Without `noDiscovery`,
   * server-only packages (the database, pino, nodemailer) would be found too and bundled for the browser: React
   * Router's dev server transforms every module of a page, its server modules included, as browser modules to
   * collect the page's CSS. tests/integration/build/dev-server-dependencies.test.ts fails when a browser import is
   * missing here.
   */
  optimizeDeps: { noDiscovery: true, include: ["@conform-to/react", "@simplewebauthn/browser"] },
  build: {
    assetsInlineLimit: 0,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // Every page loads the frame (header, menu, footer, toasts, error page) and the i18n and routing helpers:
          // one chunk compresses better than a dozen small ones and saves requests on slow phone connections.
          // Components only some pages use (forms, admin, legal documents, the style guide) stay out of it.
          // The root and the member and default layouts are on every member page too: their few hundred bytes
          // each cost less inside the frame's chunk than as files of their own.
          // The form kit (the form hook and Conform's prop helpers) is on every page with a form that posts; the fields
          // are a chunk of their own, because the staff pages' search and filter forms (plain GET forms) use them
          // without Conform.
          groups: [
            { name: "app-shell", test: FRAME_MODULES },
            { name: "form-fields", test: /\/app\/components\/(form\/fields|use-message-translator)\./ },
            { name: "form-kit", test: /\/app\/components\/form\/|\/@conform-to\/react\// },
          ],
        },
      },
    },
  },
};

const BUILDS: Record<string, UserConfig> = { "http-server": httpServerBuild, lambdas: lambdaBuild };

/**
 * React Router's own production build for the browser. Its package exports name only its development build
 * (remix-run/react-router#14102, open), so without this every page ships its development warnings and checks, and
 * members' consoles show them. Both entries the browser imports (`react-router` and `react-router/dom`) are taken
 * from dist/production, which share one copy of the router there. The server build and the dev server keep what the
 * package exports.
 */
function reactRouterProductionBuild(): Alias[] {
  const production = path.join(
    path.dirname(createRequire(import.meta.url).resolve("react-router/package.json")),
    "dist/production",
  );
  return [
    { find: /^react-router$/, replacement: path.join(production, "index.mjs") },
    { find: /^react-router\/dom$/, replacement: path.join(production, "dom-export.mjs") },
  ];
}

export default defineConfig(({ mode, command, isSsrBuild }) => {
  const build = BUILDS[mode];
  if (build) return build;
  if (command !== "build" || isSsrBuild) return appBuild;
  return { ...appBuild, resolve: { ...appBuild.resolve, alias: reactRouterProductionBuild() } };
});
