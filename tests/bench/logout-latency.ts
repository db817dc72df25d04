/**
 * `npm run bench:logout`: how long a sibling service waits to hear that a member logged out (issue 47: p95 from the
 * member's click to the sibling's 200 within 5 seconds). LOGOUTS (50) members are signed in through the sign-in
 * page of our production server in preview mode (the Cognito stand-in, PGlite); then, one at a time, each posts the
 * sign-out form (the click), and the clock runs until each of the four sibling services' back-channel logout URIs,
 * served by a receiver in this process, has answered 200 to a logout_token naming that session's sid. The receiver
 * checks each token with jose against the app's /.well-known/jwks.json (keys cached, as a sibling would), then answers.
 * The clicks come at random moments, a pause of up to one delivery poll interval before each.
 *
 * It is a report, not a test: it exits non-zero only when it cannot measure (a server that does not start, a sign-in
 * or sign-out that does not work, a token that does not verify), never because a number is bad.
 */
import { randomInt } from "node:crypto";
import { once } from "node:events";
import http, { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { SIBLING_SERVICES, type SiblingService } from "~/config.server";
import { DELIVERY_POLL_INTERVAL_MS } from "~/domain/events/event-delivery.server";
import {
  addCleanup,
  ensureAppBuild,
  findFreePort,
  printTable,
  runBenchmarkMain,
  startPreviewServer,
} from "./bench-support";
import { postForm, signedInCookie } from "./page-member";

const LOGOUTS = Number(process.env.LOGOUTS ?? 50);
/** A sibling's answer that has not come in this long is a failure to measure, not a figure. */
const ANSWER_TIMEOUT_MS = 60_000;

/** The session's sid as the siblings know it: the origin_jti of the access token in the session cookie. */
function sidOfCookie(cookie: string): string {
  const raw = decodeURIComponent(cookie.slice("id_session=".length));
  const value = JSON.parse(Buffer.from(raw.slice(0, raw.lastIndexOf(".")), "base64").toString("utf8")) as {
    at: string;
  };
  return (decodeJwt(value.at) as { origin_jti: string }).origin_jti;
}

/**
 * The four siblings' logout URIs (/<service>/logout): each token is verified against the app's keys, answered 200,
 * and the moment the answer was sent is kept by service and sid.
 */
async function startLogoutReceiver() {
  let verifyWith: ReturnType<typeof createRemoteJWKSet> | null = null;
  let issuer = "";
  const answeredAt = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  const keyOf = (service: string, sid: string) => `${service} ${sid}`;
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const service = /^\/(\w+)\/logout$/.exec(request.url ?? "")?.[1] ?? "";
      const token = new URLSearchParams(body).get("logout_token") ?? "";
      jwtVerify(token, verifyWith!, { issuer, audience: service, typ: "logout+jwt", algorithms: ["ES256"] }).then(
        ({ payload }) => {
          response.writeHead(200).end();
          const key = keyOf(service, String(payload.sid));
          answeredAt.set(key, performance.now());
          waiting.get(key)?.();
        },
        (error: unknown) => {
          console.error(`A logout token to ${service} did not verify: ${(error as Error).message}`);
          response.writeHead(400).end();
        },
      );
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  addCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    uriOf: (service: SiblingService) => `${url}/${service}/logout`,
    verifyFor(appOrigin: string) {
      issuer = appOrigin;
      verifyWith = createRemoteJWKSet(new URL(`${appOrigin}/.well-known/jwks.json`));
    },
    /** When `service`'s receiver answered 200 for `sid`, waiting for it. */
    async answered(service: SiblingService, sid: string): Promise<number> {
      const key = keyOf(service, sid);
      if (!answeredAt.has(key)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${service} heard nothing of ${sid}`)), ANSWER_TIMEOUT_MS);
          waiting.set(key, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return answeredAt.get(key)!;
    },
  };
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!;
}

await runBenchmarkMain(async () => {
  await ensureAppBuild();
  const receiver = await startLogoutReceiver();
  const standInPort = await findFreePort();
  const app = await startPreviewServer({
    STANDIN_COGNITO_PORT: String(standInPort),
    LOG_LEVEL: "warn",
    RATE_LIMIT_SIGN_IN_PER_IP: "1000000",
    ...Object.fromEntries(
      SIBLING_SERVICES.map((service) => [`SERVICE_LOGOUT_URI_${service.toUpperCase()}`, receiver.uriOf(service)]),
    ),
  });
  receiver.verifyFor(app.origin);

  const browsers = [];
  for (let index = 0; index < LOGOUTS; index++) browsers.push(await signedInCookie(app, standInPort, `logout${index}`));

  const agent = new http.Agent({ keepAlive: true });
  const timings = { answered: [] as number[], first: [] as number[], all: [] as number[] };
  for (const { cookie } of browsers) {
    // Clicks at random moments of the worker's poll, as members' are: one right after the previous delivery would
    // always land at the same point of it.
    await sleep(randomInt(DELIVERY_POLL_INTERVAL_MS));
    const sid = sidOfCookie(cookie);
    const clicked = performance.now();
    const signOut = await postForm(agent, `${app.origin}/auth/sign-out/`, {}, cookie);
    if (signOut.status !== 302) throw new Error(`The sign-out answered ${signOut.status}`);
    timings.answered.push(performance.now() - clicked);
    const heard = await Promise.all(SIBLING_SERVICES.map((service) => receiver.answered(service, sid)));
    timings.first.push(Math.min(...heard) - clicked);
    timings.all.push(Math.max(...heard) - clicked);
  }

  console.log(`\n${LOGOUTS} sign-outs one at a time, four siblings with a back-channel logout URI:\n`);
  printTable(
    ["from the click (the sign-out POST) to", "p50 ms", "p95 ms", "max ms"],
    [
      ["the member's page answered", timings.answered],
      ["the first sibling's receiver answered 200", timings.first],
      ["all four siblings' receivers answered 200", timings.all],
    ].map(([label, values]) => {
      const sorted = (values as number[]).sort((a, b) => a - b);
      return [label as string, ...[0.5, 0.95, 1].map((fraction) => percentile(sorted, fraction).toFixed(0))];
    }),
  );
});
