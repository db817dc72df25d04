/**
 * Loaded (`--import`) into every server process the tests and benchmarks start (node-child.ts), which gives it an IPC
 * channel to the process that started it. When that process ends, however it ends (a test runner killed with
 * SIGKILL, a closed terminal), the channel closes: the server then stops as on SIGTERM, so no server, and no stand-in
 * it started, outlives its runner and holds its ports, data directory and database connections.
 */
import { isMainThread } from "node:worker_threads";

function stopWithParent(): void {
  if (!process.connected) {
    // The channel closed while this process was still loading: its parent has already ended.
    process.kill(process.pid, "SIGTERM");
    return;
  }
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  // Listening for the channel's end refs it: the channel alone must not keep alive a server that would otherwise exit.
  process.channel?.unref();
}

// A worker thread started with the process's `--import` flags runs this too (Node 22 and later), with no channel of
// its own: only the main thread watches the process's.
if (isMainThread) stopWithParent();
