import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

const FRAME_MODULES =
  /\/app\/(i18n|routing)\/|\/app\/components\/(page-frame|site-|user-menu|language-switch|toast-region|app-link|icons|use-|nonce|error-page)/;

export default defineConfig({
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
          groups: [{ name: "app-shell", test: FRAME_MODULES }],
        },
      },
    },
  },
});
