import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

export default defineConfig({
  // Vitest must not load the React Router plugin (STACK.md trap 3); it has its own vitest.config.ts.
  plugins: [reactRouter()],
  resolve: { tsconfigPaths: true },
  build: { assetsInlineLimit: 0 },
});
