import { reactRouter } from "@react-router/dev/vite";
import { type UserConfig, defineConfig } from "vite";

// Of i18n/, only the lookup hook and the locale list: prefecture-names would bring Japan's 47 into every page.
const FRAME_MODULES =
  /\/app\/(root\.tsx|layouts\/(default|member)-layout|i18n\/(use-translation|locales)\.ts|routing\/)|\/app\/components\/(page-frame|site-|user-menu|language-switch|toast-region|app-link|icons|use-|nonce|error-page)/;

/**
 * `npm run build:server` (`vite build --mode http-server`): the HTTP server and the command-line jobs compiled to
 * plain JavaScript in build/http-server/, so production runs them with `node` and no TypeScript loader; also the
 * new-password rule's thread, which the pages start from there, and the user pool's pre token generation and custom
 * message triggers, which are deployed to Lambda from there (docs/deployment.md). Packages stay external; the pages
 * are React Router's own build (build/server/index.js), which the server loads at start.
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
        "pre-token-generation": "app/integrations/cognito/pre-token-generation.ts",
        "custom-message": "app/integrations/cognito/custom-message.ts",
      },
      output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js" },
    },
  },
};

const appBuild: UserConfig = {
  // Vitest must not load the React Router plugin (STACK.md trap 3); it has its own vitest.config.ts.
  plugins: [reactRouter()],
  resolve: { tsconfigPaths: true },
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

export default defineConfig(({ mode }) => (mode === "http-server" ? httpServerBuild : appBuild));
