/**
 * `npm run dev` and `npm run preview`: starts the development stand-ins (the Cognito stand-in, the SMTP capture
 * and the dev mailbox, the sibling services' event capture, in tests/support/stand-ins) and then the server on them: from source under Vite in dev,
 * the compiled production server in preview. With COGNITO_ENDPOINT, the pool's and app clients' ids, SMTP_URL and
 * DATABASE_URL set, it joins the stand-ins another instance started instead, so that two instances run as one. The only file in app/ that imports the tests' tree; the production
 * server (main.ts) never imports this one.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { joinRunningStack, startEmbeddedStack } from "../../tests/support/stand-ins/embedded-stack";
import { listenAddressOf } from "~/config.server";
import { modeFromArguments, portInUse, refusePortInUse, refuseToStart } from "./refuse-to-start";

/** Where `npm run build:server` puts the compiled server (vite.config.ts, mode "http-server"). */
const COMPILED_START_SERVER = path.resolve("build/http-server/start-server.js");

const mode = modeFromArguments();
if (mode === "production") {
  refuseToStart("--mode=production runs without stand-ins:", ["start it with `npm start`"], "the README's Quick start");
}
// On Node 20, which development still supports (README), the AWS SDK opens every start with a screen saying that its
// releases after January 2027 need Node 22. The SDK is pinned and production runs Node 24, so there is nothing to do
// about it here; the variable is the SDK's documented switch (aws/aws-sdk-js-v3#7983), set for dev and preview only,
// and inherited by the stand-in's process.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const { startServer } = (
  mode === "dev" ? await import("./start-server") : await import(pathToFileURL(COMPILED_START_SERVER).href)
) as typeof import("./start-server");
// Most often a second `npm run dev`: refused at once, before the stand-ins start (the server checks again as it
// binds the port, for whatever took it in between).
const listenAddress = listenAddressOf(process.env);
if (listenAddress && listenAddress.port !== 0 && (await portInUse(listenAddress))) refusePortInUse(listenAddress);
const dataDir = process.env.DATA_DIR ?? ".data";
const joined = await joinRunningStack(process.env, dataDir);
if (joined && "problems" in joined) {
  refuseToStart("Cannot join running stand-ins:", joined.problems, "the README's Two instances on one stand-in");
}
const standIns =
  joined ??
  (await startEmbeddedStack({
    dataDir,
    adminGroup: process.env.ADMIN_GROUP ?? "admin",
    cognitoPort: Number(process.env.STANDIN_COGNITO_PORT ?? 0),
    smtpPort: Number(process.env.STANDIN_SMTP_PORT ?? 0),
    eventsPort: Number(process.env.STANDIN_EVENTS_PORT ?? 0),
  }));
await startServer(mode, standIns);
