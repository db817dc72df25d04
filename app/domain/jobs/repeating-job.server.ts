/**
 * Runs a job inside the server process: first after `firstRunDelayMs`, then every `intervalMs`, never two at once in
 * this process (a run still going when the next is due skips that one). The timers are unref'd (they never keep
 * the process alive). Returns a stop function. The job reports its own failures; a rejection is not retried early.
 */
export function scheduleRepeating(
  job: () => Promise<void>,
  options: { firstRunDelayMs: number; intervalMs: number },
): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await job();
    } finally {
      running = false;
    }
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    void run();
    interval = setInterval(() => void run(), options.intervalMs);
    interval.unref();
  }, options.firstRunDelayMs);
  first.unref();
  return () => {
    clearTimeout(first);
    if (interval) clearInterval(interval);
  };
}
