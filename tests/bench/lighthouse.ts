/**
 * Lighthouse on the main member pages (`npm run bench:lighthouse`; BENCH_RUNS=n runs per page, default 3).
 *
 * What it measures: Lighthouse's default configuration, a mid-range phone (mobile screen emulation, simulated
 * slow 4G and a 4× slower CPU), on the production build in preview mode, in Debian's Chromium, over loopback:
 * nothing leaves the machine. Pages: home, sign-in, sign-up (signed out) and /my/profile/ (signed in: the session
 * cookie a real sign-in gave is sent with every request). Each page runs BENCH_RUNS times; the run with the median
 * performance score is printed with its LCP, TBT and CLS, beside accessibility and best practices.
 * Targets: performance ≥ 95, accessibility 100, best practices ≥ 95. Failed audits are listed under the
 * table, with the elements they name, so a score below 100 says what to fix.
 *
 * How to read it: simulated throttling scales what this machine observed, so a machine busy with other work reads
 * slower (TBT most); run it on a quiet machine and compare runs, not single figures. It is a report, not a test: it
 * exits non-zero only when it cannot measure, never because a score is low.
 */
import { chromium } from "@playwright/test";
import lighthouse from "lighthouse";
import { ensureAppBuild, findFreePort, printTable, runBenchmarkMain, startPreviewServer } from "./bench-support";
import { CHROMIUM_PATH } from "../support/chromium";
import { signedInContext } from "../support/page-javascript";
import { createTestMember } from "../support/test-members";

/** The part of a Lighthouse report read here. */
interface LighthouseAudit {
  id: string;
  score: number | null;
  scoreDisplayMode: string;
  displayValue?: string;
  numericValue?: number;
  details?: unknown;
}
interface LighthouseResult {
  runtimeError?: { message: string };
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] } | undefined>;
  audits: Record<string, LighthouseAudit | undefined>;
}
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CATEGORIES = ["performance", "accessibility", "best-practices"] as const;
const TARGETS: Record<(typeof CATEGORIES)[number], number> = {
  performance: 95,
  accessibility: 100,
  "best-practices": 95,
};

interface LighthouseRun {
  scores: Record<(typeof CATEGORIES)[number], number>;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  failedAudits: string[];
}

function summarise(lhr: LighthouseResult): LighthouseRun {
  const score = (category: (typeof CATEGORIES)[number]) => Math.round((lhr.categories[category]?.score ?? 0) * 100);
  const numeric = (audit: string) => lhr.audits[audit]?.numericValue ?? Number.NaN;
  // Audits that count towards a category's score and did not pass, with the elements or URLs they name.
  const failedAudits = CATEGORIES.flatMap((category) =>
    (lhr.categories[category]?.auditRefs ?? [])
      .filter((ref) => ref.weight > 0)
      .map((ref) => lhr.audits[ref.id]!)
      .filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== "informative")
      .map((audit) => {
        const items = (audit.details as { items?: { node?: { selector?: string }; url?: string }[] } | undefined)
          ?.items;
        const named = (items ?? [])
          .map((item) => item.node?.selector ?? item.url)
          .filter(Boolean)
          .slice(0, 4);
        return `${category}: ${audit.id} (${audit.displayValue ?? audit.score})${named.length ? `: ${named.join(", ")}` : ""}`;
      }),
  );
  return {
    scores: {
      performance: score("performance"),
      accessibility: score("accessibility"),
      "best-practices": score("best-practices"),
    },
    lcpMs: numeric("largest-contentful-paint"),
    tbtMs: numeric("total-blocking-time"),
    cls: numeric("cumulative-layout-shift"),
    failedAudits,
  };
}

async function runBenchmark() {
  await ensureAppBuild();
  const standInPort = await findFreePort();
  const app = await startPreviewServer({ STANDIN_COGNITO_PORT: String(standInPort) });
  const member = await createTestMember(standInPort, "lighthouse");

  const debuggingPort = await findFreePort();
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [`--remote-debugging-port=${debuggingPort}`, "--disable-background-networking", "--disable-quic"],
  });
  try {
    // Lighthouse opens its own tabs, which share no cookies with Playwright's contexts: the member's cookies go
    // in a Cookie header on every request instead.
    const memberContext = await signedInContext(browser, app.origin, member);
    const cookie = (await memberContext.cookies()).map((stored) => `${stored.name}=${stored.value}`).join("; ");
    await memberContext.close();

    const pages: { label: string; path: string; headers: Record<string, string> }[] = [
      { label: "home", path: "/", headers: {} },
      { label: "sign-in", path: "/auth/sign-in/", headers: {} },
      { label: "sign-up", path: "/auth/sign-up/", headers: {} },
      { label: "my profile (signed in)", path: "/my/profile/", headers: { Cookie: cookie } },
    ];
    const results: { label: string; path: string; run: LighthouseRun }[] = [];
    for (const page of pages) {
      const runs: LighthouseRun[] = [];
      for (let index = 0; index < RUNS; index++) {
        console.log(`  ${page.path} run ${index + 1}/${RUNS}…`);
        const result = await lighthouse(app.origin + page.path, {
          port: debuggingPort,
          logLevel: "error",
          onlyCategories: [...CATEGORIES],
          extraHeaders: page.headers,
        });
        if (!result) throw new Error(`Lighthouse returned nothing for ${page.path}`);
        if (result.lhr.runtimeError) throw new Error(`${page.path}: ${result.lhr.runtimeError.message}`);
        runs.push(summarise(result.lhr));
      }
      runs.sort((a, b) => a.scores.performance - b.scores.performance);
      results.push({ label: page.label, path: page.path, run: runs[Math.floor(runs.length / 2)]! });
    }

    console.log(
      `\nLighthouse ${RUNS}× per page, the median run by performance (mobile, simulated slow 4G, 4× CPU slowdown)\n`,
    );
    const mark = (category: (typeof CATEGORIES)[number], value: number) =>
      `${value}${value >= TARGETS[category] ? "" : " (below)"}`;
    printTable(
      ["page", "performance", "accessibility", "best practices", "LCP ms", "TBT ms", "CLS"],
      results.map(({ label, run }) => [
        label,
        mark("performance", run.scores.performance),
        mark("accessibility", run.scores.accessibility),
        mark("best-practices", run.scores["best-practices"]),
        run.lcpMs.toFixed(0),
        run.tbtMs.toFixed(0),
        run.cls.toFixed(3),
      ]),
    );
    console.log(
      `\nTargets: performance ≥ ${TARGETS.performance}, accessibility ${TARGETS.accessibility}, ` +
        `best practices ≥ ${TARGETS["best-practices"]}`,
    );
    for (const { path, run } of results) {
      for (const failed of run.failedAudits) console.log(`  ${path} ${failed}`);
    }
  } finally {
    await browser.close();
  }
}

await runBenchmarkMain(runBenchmark);
