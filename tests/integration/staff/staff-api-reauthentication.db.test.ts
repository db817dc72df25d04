import { decodeJwt } from "jose";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ErrorEnvelopeSchema } from "~/api/contract";
import { REAUTHENTICATION_WINDOW_MS } from "~/domain/account/reauthentication.server";
import { CSV_IMPORT_COLUMNS } from "~/domain/csv-import/csv-import-file.server";
import { checkStaffGroup } from "~/domain/directory/staff-group-check.server";
import { MAX_PAGE_SIZE } from "~/domain/staff/member-search.server";
import * as csvImport from "~/routes/api/admin/csv-import";
import * as emailAddressesCsv from "~/routes/api/admin/email-addresses-csv";
import * as userDisable from "~/routes/api/admin/user-disable";
import * as userEmailUpdate from "~/routes/api/admin/user-email-update";
import * as userTwoStepOff from "~/routes/api/admin/user-two-step-off";
import * as usersCsv from "~/routes/api/admin/users-csv";
import type { Clock } from "~/services.server";
import { type StandInSdk, connectToStandIn } from "../../support/bearer-tokens";
import { staffTokensFor } from "../../support/staff-api-access";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { routeCalls } from "../../support/route-calls";
import { useTestServices } from "../../support/test-services";

// The staff API's high-impact actions need a sign-in (the token's auth_time) within 10 minutes, by the app's clock,
// which is the test's: the stand-in's token stays valid (jose checks its expiry by the real time) while the app
// counts 11 minutes since the sign-in. The real parts: the Cognito stand-in over HTTP, PGlite or PostgreSQL. The
// route modules are called as the HTTP server calls them; the staff group is read as the job reads it.
const ORIGIN = "http://localhost:3996";
const MINUTE_MS = 60 * 1000;
let sdk: StandInSdk;
let current = new Date();
const clock: Clock = { now: () => current };
const app = useTestServices({ label: "staff-api-reauthentication", origin: ORIGIN, clock, ownDatabase: true });
const calls = routeCalls(ORIGIN, () => app.services);

beforeAll(async () => {
  sdk = await connectToStandIn(app.standInPort);
});

afterAll(async () => {
  sdk?.destroy();
});

type ApiModule = { loader: (args: never) => Promise<Response>; action: (args: never) => Promise<Response> };

/**
 * The high-impact calls, on a sub no member has where they name one: past the re-authentication check, 404. The
 * downloads: more rows than one page of the member list (any `limit` above it, the default 10,000 included, or
 * `all`), and the newsletter's e-mail addresses with their unsubscribe links.
 */
const HIGH_IMPACT: { name: string; module: ApiModule; request: (token: string) => Request; params?: object }[] = [
  {
    name: "adminChangeUserEmail",
    module: userEmailUpdate,
    request: (token) => post("/api/admin/email-updates/SUB", token, JSON.stringify({ email: "new@example.jp" })),
  },
  { name: "adminDisableUser", module: userDisable, request: (token) => post("/api/admin/users/SUB/disable", token) },
  {
    name: "adminTurnOffTwoStep",
    module: userTwoStepOff,
    request: (token) => post("/api/admin/users/SUB/two-step-verification/disable", token),
  },
  {
    name: "adminExportUsers (all)",
    module: usersCsv,
    request: (token) => new Request(`${ORIGIN}/api/admin/users.csv?all=1`, { headers: bearer(token) }),
  },
  {
    name: "adminExportUsers (one row more than a page of the list)",
    module: usersCsv,
    request: (token) =>
      new Request(`${ORIGIN}/api/admin/users.csv?limit=${MAX_PAGE_SIZE + 1}`, { headers: bearer(token) }),
  },
  {
    name: "adminExportUsers (the default limit)",
    module: usersCsv,
    request: (token) => new Request(`${ORIGIN}/api/admin/users.csv`, { headers: bearer(token) }),
  },
  {
    name: "adminExportEmailAddresses",
    module: emailAddressesCsv,
    request: (token) =>
      new Request(`${ORIGIN}/api/admin/downloads/email-addresses?locale=ja`, { headers: bearer(token) }),
  },
  {
    name: "adminCsvImportUserCreate (a real import)",
    module: csvImport,
    // One row with a bad e-mail address: past the check it is refused (422), and nothing is created.
    request: (token) =>
      new Request(`${ORIGIN}/api/admin/csv-import/user-create`, {
        method: "POST",
        headers: { ...bearer(token), "Content-Type": "text/csv" },
        body: `${CSV_IMPORT_COLUMNS.join(",")}\nnot-an-address,山田,花子,1990,JP,東京都,design,会社,ja\n`,
      }),
  },
];

const bearer = (token: string) => ({ Authorization: `Bearer ${token}`, "Accept-Language": "en" });
const post = (path: string, token: string, json?: string) =>
  new Request(`${ORIGIN}${path.replace("SUB", crypto.randomUUID())}`, {
    method: "POST",
    headers: { ...bearer(token), ...(json ? { "Content-Type": "application/json" } : {}) },
    body: json,
  });

async function answer(module: ApiModule, request: Request) {
  const context = await calls.context(request, null);
  const params = { sub: new URL(request.url).pathname.split("/").find((part) => /^[0-9a-f-]{36}$/.test(part)) };
  const handler = request.method === "GET" ? module.loader : module.action;
  const response = await handler({ request, context, params, pattern: "" } as never);
  const isJson = response.headers.get("Content-Type")?.startsWith("application/json") ?? false;
  const code = isJson ? ErrorEnvelopeSchema.safeParse(await response.json()).data?.error.code : undefined;
  if (!isJson) await response.body?.cancel();
  return { status: response.status, code };
}

/** Moves the app's clock to `ms` after the token's sign-in, and reads the staff group then (as the job would). */
async function atSinceSignIn(token: string, ms: number) {
  current = new Date(Number(decodeJwt(token).auth_time) * 1000 + ms);
  await checkStaffGroup(
    { db: app.db, identity: app.services.identity, clock },
    { staffGroup: "admin", intervalMs: 1000 },
  );
}

test("each high-impact staff action: 403 reauthentication_required 11 minutes after the sign-in, done within 10", async () => {
  const admin = await staffWithAuthenticatorIn(app.services, app.standInPort, "reauth");
  const { accessToken } = await staffTokensFor(sdk, admin);
  expect(decodeJwt(accessToken).auth_time).toEqual(expect.any(Number));
  for (const call of HIGH_IMPACT) {
    await atSinceSignIn(accessToken, 11 * MINUTE_MS);
    expect(await answer(call.module, call.request(accessToken)), call.name).toEqual({
      status: 403,
      code: "reauthentication_required",
    });
    await atSinceSignIn(accessToken, REAUTHENTICATION_WINDOW_MS - MINUTE_MS);
    const recent = await answer(call.module, call.request(accessToken));
    expect(recent.code, call.name).not.toBe("reauthentication_required");
    expect(recent.status, `${call.name}: ${recent.code}`).toBeLessThan(500);
  }
});

test("a users.csv of at most one page of the member list needs no recent sign-in, as the list itself does not", async () => {
  // The app's clock back to the real time: the authenticator app is turned on by it, before the sign-in.
  current = new Date();
  const admin = await staffWithAuthenticatorIn(app.services, app.standInPort, "page-export");
  const { accessToken } = await staffTokensFor(sdk, admin);
  await atSinceSignIn(accessToken, 11 * MINUTE_MS);
  const request = new Request(`${ORIGIN}/api/admin/users.csv?limit=${MAX_PAGE_SIZE}&page=3`, {
    headers: bearer(accessToken),
  });
  expect(await answer(usersCsv, request)).toEqual({ status: 200, code: undefined });
});
