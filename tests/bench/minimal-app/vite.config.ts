import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

// `react-router build` needs the plugin in a Vite config of its own; without one it refuses to build.
export default defineConfig({ plugins: [reactRouter()] });
