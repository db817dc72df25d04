import { defineConfig } from "vite";

/**
 * `npm run build:server`: the HTTP server and the command-line jobs compiled to plain JavaScript in
 * build/http-server/, so production runs them with `node` and no TypeScript loader. Packages stay external
 * (node_modules); the pages are React Router's own build (build/server/index.js), loaded by the server at start.
 */
export default defineConfig({
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
        "legacy-import": "app/commands/legacy-import.ts",
        migrate: "app/commands/migrate.ts",
      },
      output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js" },
    },
  },
});
