/**
 * `npm start`: the production server on real configuration only, compiled to build/http-server/main.js.
 * Dev and preview need the development stand-ins, which production builds leave out: see dev-entry.ts.
 */
import { modeFromArguments, refuseToStart } from "./refuse-to-start";
import { startServer } from "./start-server";

const mode = modeFromArguments();
if (mode !== "production") {
  refuseToStart(
    `--mode=${mode} runs on the development stand-ins, which the production server does not contain:`,
    ["start it with `npm run dev` or `npm run preview`"],
    "the README's Quick start",
  );
}
await startServer(mode);
