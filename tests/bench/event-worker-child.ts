/**
 * One instance's account-event delivery worker, alone in its process, for tests/bench/events.ts: the database at
 * DATABASE_URL, the siblings' settings from the environment as the server reads them. It says "ready" once its
 * database is open and starts delivering when its parent sends "go"; SIGTERM stops it as the server's shutdown does.
 */
import { openDatabase } from "~db/client.server";
import { parseConfig } from "~/config.server";
import { startEventDeliveryWorker } from "~/domain/events/event-delivery.server";
import { createLogoutTokenSigner } from "~/domain/events/logout-tokens.server";
import { createSiblingSender } from "~/integrations/webhook-sender.server";
import { systemClock } from "~/services.server";

const config = parseConfig(process.env);
const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const sender = createSiblingSender({ refuseInternalAddresses: false });
const signer = await createLogoutTokenSigner(config.logoutTokenSigningKeys, config.origin);
console.log("ready");

// The parent's channel does not keep this process alive (exit-with-parent.ts), nor does the worker's timer: this
// does, as a server's listening socket would, until SIGTERM.
const alive = setInterval(() => {}, 60_000);
process.once("message", () => {
  const worker = startEventDeliveryWorker({
    db: database.db,
    clock: systemClock,
    settings: config.siblingEvents,
    signer,
    sender,
  });
  process.once("SIGTERM", () => {
    clearInterval(alive);
    void worker.stop().then(async () => {
      sender.close();
      await database.close();
      process.exit(0);
    });
  });
});
