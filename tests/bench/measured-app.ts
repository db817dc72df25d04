/**
 * The servers the page benchmarks (pages.ts, saturation.ts) measure side by side: our production server in preview
 * mode (the real HTTP layer, one access log line per request, the logs sent to /dev/null), the smallest
 * server-rendered React Router page served by the same stack (tests/bench/minimal-app), and with BENCH_BASELINE=<git
 * ref> another commit's build ("base"). With DATABASE_URL=postgres://… our server and the base each get a fresh
 * database of their own on that PostgreSQL (production's shape); by default each its own PGlite, whose queries run on
 * the server's own thread.
 */
import path from "node:path";
import {
  REPO_ROOT,
  type RunningServer,
  assertServesPage,
  buildReactRouterApp,
  checkOutAndBuild,
  ensureAppBuild,
  ensureBenchDatabase,
  findFreePort,
  startPreviewServer,
  startServer,
} from "./bench-support";
import { signedInCookie } from "./page-member";

const MINIMAL_APP_DIR = path.join(import.meta.dirname, "minimal-app");

/** Where members are (signed in), and the one page most visitors see first. */
export const MEASURED_PAGES = [
  { label: "/my/profile/", path: "/my/profile/", signedIn: true },
  { label: "/my/security/", path: "/my/security/", signedIn: true },
  { label: "/ signed in", path: "/", signedIn: true },
  { label: "/ anonymous", path: "/", signedIn: false },
] as const;

export interface MeasuredApp {
  /** "our" or "base". */
  name: string;
  server: RunningServer;
  standInPort: number;
  /** The Cookie header of a member signed in on this server. */
  cookie: string;
  /** The operators' metrics endpoint, when asked for. */
  metricsOrigin?: string;
  /** The commit, for the base. */
  commit?: string;
}

/** A fresh database for `name` on DATABASE_URL's server, or undefined for PGlite. */
async function databaseFor(name: string): Promise<string | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${decodeURIComponent(url.pathname.slice(1)) || "bench"}_pages_${name}`;
  await ensureBenchDatabase(url.toString(), { fresh: true });
  return url.toString();
}

async function startMeasuredApp(
  name: string,
  checkout: { name: string; dir: string; commit?: string },
  options: { metrics: boolean },
): Promise<MeasuredApp> {
  const standInPort = await findFreePort();
  const metricsPort = options.metrics ? await findFreePort() : undefined;
  const database = await databaseFor(name);
  const server = await startPreviewServer(
    {
      STANDIN_COGNITO_PORT: String(standInPort),
      // Unset is PGlite, whatever this process's environment says.
      DATABASE_URL: database,
      ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}),
    },
    checkout,
  );
  const { cookie, email } = await signedInCookie(server, standInPort, `bench-pages-${name}`);
  const profile = await assertServesPage(server, "/my/profile/", { cookie });
  if (!profile.body.toString("utf8").includes(email)) {
    throw new Error(`${server.name}: /my/profile/ answered 200 but not as the signed-in member`);
  }
  for (const page of MEASURED_PAGES) await assertServesPage(server, page.path, page.signedIn ? { cookie } : {});
  return {
    name,
    server,
    standInPort,
    cookie,
    metricsOrigin: metricsPort ? `http://127.0.0.1:${metricsPort}` : undefined,
    commit: checkout.commit,
  };
}

/** The minimal React Router page, rebuilt every time (it builds in seconds). */
export async function startMinimalApp(): Promise<RunningServer> {
  await buildReactRouterApp("the minimal app", MINIMAL_APP_DIR);
  const minimal = await startServer({
    name: "the minimal app",
    script: path.relative(REPO_ROOT, path.join(MINIMAL_APP_DIR, "server.ts")),
    args: [],
    port: await findFreePort(),
    env: {},
    readyPath: "/",
  });
  await assertServesPage(minimal, "/");
  return minimal;
}

/** Our server and, with BENCH_BASELINE, the base, each with a member signed in; `metrics` opens their metrics ports. */
export async function startMeasuredApps(options: { metrics: boolean }): Promise<MeasuredApp[]> {
  await ensureAppBuild();
  const apps = [await startMeasuredApp("our", { name: "our server", dir: REPO_ROOT }, options)];
  const baselineRef = process.env.BENCH_BASELINE;
  if (baselineRef) {
    const checkout = await checkOutAndBuild(baselineRef);
    apps.push(await startMeasuredApp("base", { name: "the baseline server", ...checkout }, options));
  }
  return apps;
}

const headersFor = (app: MeasuredApp, page: (typeof MEASURED_PAGES)[number]): Record<string, string> =>
  page.signedIn ? { cookie: app.cookie } : {};

export const MINIMAL = "minimal /";

export interface MeasuredTarget {
  label: string;
  server: RunningServer;
  pagePath: string;
  headers: Record<string, string>;
  metricsOrigin?: string;
}

/** The minimal page, then every measured page of each app, labelled "<app> <page>". */
export function measuredTargets(apps: MeasuredApp[], minimal: RunningServer): MeasuredTarget[] {
  return [
    { label: MINIMAL, server: minimal, pagePath: "/", headers: {} },
    ...apps.flatMap((app) =>
      MEASURED_PAGES.map((page) => ({
        label: `${app.name} ${page.label}`,
        server: app.server,
        pagePath: page.path,
        headers: headersFor(app, page),
        metricsOrigin: app.metricsOrigin,
      })),
    ),
  ];
}

export const databaseLabel = () => (process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : "PGlite");
