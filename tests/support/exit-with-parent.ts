/**
 * Loaded (`--import`) into every server process the tests and benchmarks start (node-child.ts), which gives it an IPC
 * channel to the process that started it. When that process ends, however it ends (a test runner killed with
 * SIGKILL, a closed terminal), the channel closes: the server then stops as on SIGTERM, so no server, and no stand-in
 * it started, outlives its runner and holds its ports, data directory and database connections.
 */
if (!process.connected) {
  // The channel closed while this process was still loading: its parent has already ended.
  process.kill(process.pid, "SIGTERM");
} else {
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
  // Listening for the channel's end refs it: the channel alone must not keep alive a server that would otherwise exit.
  process.channel?.unref();
}

export {};
