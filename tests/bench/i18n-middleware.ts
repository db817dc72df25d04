/**
 * What remix-i18next's middleware costs a request (`npm run bench`, after the page throughput): it finds the
 * language and creates and initialises an i18next instance on every request. Run in this process, many times
 * over, and read as CPU time, so other load on the machine hardly changes it; compare it with the CPU per request
 * of the home page (page-throughput.ts).
 */
import { RouterContextProvider } from "react-router";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";

const WARMUP_RUNS = 2_000;
const MEASURED_RUNS = 20_000;

async function runMiddleware(request: Request) {
  const args = { request, context: new RouterContextProvider(), params: {}, unstable_pattern: "/" };
  await i18nextMiddleware(args as never, async () => new Response());
}

/** Prints the middleware's CPU time per request, for a Japanese and an English page. */
export async function reportI18nMiddlewareCost() {
  console.log("\nremix-i18next's middleware alone (language and a new i18next instance per request), in-process:");
  for (const url of ["http://127.0.0.1/", "http://127.0.0.1/en/"]) {
    const request = new Request(url);
    for (let run = 0; run < WARMUP_RUNS; run++) await runMiddleware(request);
    const before = process.cpuUsage();
    for (let run = 0; run < MEASURED_RUNS; run++) await runMiddleware(request);
    const used = process.cpuUsage(before);
    const msPerRequest = (used.user + used.system) / 1000 / MEASURED_RUNS;
    console.log(`  ${new URL(url).pathname}: ${msPerRequest.toFixed(3)} ms CPU per request (${MEASURED_RUNS} runs)`);
  }
}
