/**
 * The new-password rule's cost (`npm run bench:passwords`; BENCH_ROUNDS=n sets the calls per kind, default 200):
 * the first call, which loads the dictionaries, and then each call's median and 99th percentile for the kinds of
 * password members type, in this process, with no server. The estimate runs on the rule's own thread, so these
 * figures are how long a new-password post waits for it, while the event loop goes on with other requests. Wall
 * time counts whatever else the machine runs; CPU time (this process's user and system time over the same calls,
 * both threads, averaged) is what the check itself costs, and moves much less with a busy machine.
 *
 * It is a report, not a test: it fails only when the rule answers unexpectedly.
 */
import { performance } from "node:perf_hooks";
import { refuseWeakPassword } from "../../app/domain/account/password-strength.server";

const CALLS = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 200)) || 200);
const OWNER = { email: "taro.yamada85@example.co.jp", familyName: "山田", givenName: "太郎" };

const KINDS: { kind: string; password: (call: number) => string; refused: boolean }[] = [
  { kind: "common (password1234)", password: () => "password1234", refused: true },
  { kind: "made of the address", password: (call) => `taro.yamada${call}`, refused: true },
  { kind: "random, 8 characters", password: (call) => `Zq7!x${String(call).padStart(3, "0")}`, refused: false },
  { kind: "passphrase, 27 characters", password: (call) => `kumo no ue de neko ga ${call}`, refused: false },
  {
    kind: "passphrase, 64+ characters",
    password: (call) => `${"midori no tokei ga hashiru yoru ".repeat(2)}${call}`,
    refused: false,
  },
  { kind: "256 characters", password: (call) => `${call}${"Ab1!".repeat(64)}`.slice(0, 256), refused: false },
];

async function refused(password: string): Promise<boolean> {
  try {
    await refuseWeakPassword(password, OWNER);
    return false;
  } catch {
    return true;
  }
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

const started = performance.now();
await refused("first call");
console.log(`first call (loads the dictionaries): ${(performance.now() - started).toFixed(0)} ms`);
const { heapUsed, rss } = process.memoryUsage();
console.log(
  `after loading: this thread's heap ${(heapUsed / 1e6).toFixed(0)} MB (the dictionaries are on the rule's thread), ` +
    `the process ${(rss / 1e6).toFixed(0)} MB\n`,
);

console.log("| Password | p50 ms | p99 ms | CPU ms per call |\n|---|---|---|---|");
for (const { kind, password, refused: expected } of KINDS) {
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let call = 0; call < CALLS; call++) {
    const start = performance.now();
    const answer = await refused(password(call));
    times.push(performance.now() - start);
    if (answer !== expected) throw new Error(`${kind}: ${password(call)} was ${answer ? "refused" : "accepted"}`);
  }
  const cpu = process.cpuUsage(cpuBefore);
  const cpuPerCall = (cpu.user + cpu.system) / 1000 / CALLS;
  times.sort((a, b) => a - b);
  const [p50, p99] = [percentile(times, 0.5), percentile(times, 0.99)];
  console.log(`| ${kind} | ${p50.toFixed(1)} | ${p99.toFixed(1)} | ${cpuPerCall.toFixed(1)} |`);
}
