import { AdminRemoveUserFromGroupCommand, InitiateAuthCommand } from "@aws-sdk/client-cognito-identity-provider";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { API_ENDPOINTS, type ApiOperationId, ErrorEnvelopeSchema } from "~/api/contract";
import { CSV_IMPORT_COLUMNS } from "~/domain/csv-import/csv-import-file.server";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { PageClient, expectResponse } from "../../support/page-client";
import { withSetCookieLines } from "../../support/cookie-jar";
import { formUrlEncode, sendRawRequest } from "../../support/raw-http";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { type StaffWithAuthenticator, createStaffAdmin } from "../../support/admin-members";
import {
  createApiStaff,
  staffTokenSource,
  staffTokensFor,
  turnOnAuthenticatorApp,
} from "../../support/staff-api-access";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * Who may use the staff side, from outside: the production build (preview mode) runs in its own process and this
 * test speaks plain HTTP to it, as a visitor, a signed-in member and an admin, to every /admin/* page (both
 * languages), the detail page's actions, and every /api/admin/* endpoint; and as an admin on another staff member,
 * whose account is changed in the AWS console only. Each cell expects exactly one status.
 * The staff pages take only a staff session (app/domain/sessions/staff-sessions.server.ts): an admin's member
 * session alone, an admin without a second factor, a staff session left idle and one in use past its 8 hours all
 * get the staff sign-in.
 * The admin API takes only the staff app client's tokens (the staff member's own members' token is refused there),
 * of staff who turned the authenticator app on, from a sign-in after that.
 */

type Role = "visitor" | "member" | "admin";

interface Person {
  email: string;
  password: string;
  sub: string;
  /** The members' app client's, as a sibling service holds it. */
  accessToken: string;
  /** The staff app client's (a staff tool's sign-in), renewed as its 5 minutes run out. */
  staffToken: () => Promise<string>;
  cookies: Map<string, string>;
}

let server: ServerProcess;
let client: PageClient;
let sdk: StandInSdk;
let member: Person;
/** An admin without a second factor: signed in as a member, never able to open a staff session. */
let admin: Person;
/**
 * An admin with an authenticator app and a staff session (no member session); one whose staff session idled; and
 * one whose staff session was in use every 25 minutes until past its 8 hours.
 */
let staffCookies: Map<string, string>;
/** The admin without a second factor, past the staff sign-in's password and on to the app's set-up. */
let settingUpCookies: Map<string, string>;
let idleStaffCookies: Map<string, string>;
let expiredStaffCookies: Map<string, string>;
/** Another staff member: the admin may look at their page and refresh it, and change nothing of their account. */
let colleague: Person;
/** An admin with an authenticator app whose staff session looks at the colleague's page. */
let onStaff: StaffWithAuthenticator;
/** An admin who turned the authenticator app on through the security page: the admin API's caller. */
let apiAdminToken: () => Promise<string>;
/** The member the admin pages and endpoints are about; one per purpose, so that no action spoils another row. */
const targets: Record<"page" | "email" | "actions", { email: string; sub: string }> & { importJobId: string } =
  {} as never;
const IMPORT_CSV = `${CSV_IMPORT_COLUMNS.join(",")}\naccess-import@example.jp,山田,花子,1990,JP,東京都,design,会社,ja\n`;

async function person(role: "member" | "admin", label = `access-${role}`): Promise<Person> {
  const { email, password } =
    role === "admin"
      ? await createStaffAdmin(server.standInPort, label)
      : await createTestMember(server.standInPort, label);
  const { sub, accessToken } = await bearerTokensFor(sdk, email, password);
  const staffToken = staffTokenSource(sdk, { email, password });
  return { email, password, sub, accessToken, staffToken, cookies: await client.signIn({ email, password }) };
}

async function target(label: string) {
  const { email } = await createTestMember(server.standInPort, label);
  const { sub } = await bearerTokensFor(sdk, email, TEST_PASSWORD);
  return { email, sub };
}

beforeAll(async () => {
  // The staff group read every second rather than every 20: a removal shows within seconds, not most of a minute.
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    STAFF_GROUP_CHECK_INTERVAL_SECONDS: "1",
  });
  client = new PageClient(server.url);
  sdk = await connectToStandIn(server.standInPort);
  let apiAdmin: StaffWithAuthenticator;
  [member, admin, colleague, apiAdmin, targets.page, targets.email, targets.actions] = await Promise.all([
    person("member"),
    person("admin"),
    person("admin", "access-colleague"),
    createApiStaff(server, "access-api-admin"),
    target("access-page-target"),
    target("access-email-target"),
    target("access-actions-target"),
  ]);
  apiAdminToken = staffTokenSource(sdk, apiAdmin);
  settingUpCookies = withSetCookieLines(admin.cookies, (await staffPasswordStep("")).headers.get("set-cookie") ?? []);
  // The detail page shows members of the staff directory: the admin's refresh puts the page's target there, and the
  // colleague with their group.
  for (const sub of [targets.page.sub, colleague.sub]) {
    const refreshed = await fetch(`${server.url}/api/admin/users/${sub}/refresh`, {
      method: "POST",
      headers: { Authorization: `Bearer ${await apiAdminToken()}` },
    });
    expect(refreshed.status).toBe(200);
    await refreshed.body?.cancel();
  }
  // A CSV import job (one row) for the job endpoints' rows.
  const imported = await fetch(`${server.url}/api/admin/csv-import/user-create`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await apiAdminToken()}`, "Content-Type": "text/csv" },
    body: IMPORT_CSV,
  });
  targets.importJobId = ((await imported.json()) as { job: { id: string } }).job.id;
  const [staff, idleStaff, expiredStaff] = await Promise.all([
    createApiStaff(server, "access-staff"),
    createApiStaff(server, "access-idle-staff"),
    createApiStaff(server, "access-expired-staff"),
  ]);
  onStaff = await createApiStaff(server, "access-on-staff");
  [staffCookies, idleStaffCookies, expiredStaffCookies] = await Promise.all([
    client.openStaffSession(staff),
    client.openStaffSession(idleStaff),
    client.openStaffSession(expiredStaff),
  ]);
  // 31 minutes without a staff page view, by the dev tools' session clock (preview mode has it).
  await moveSessionClockBack(idleStaffCookies, 31);
  // Busy for 8 hours and 20 minutes: a staff page every 25 minutes, never idle for 30, the last view 25 minutes ago.
  for (let minutes = 25; minutes <= 8 * 60; minutes += 25) {
    await moveSessionClockBack(expiredStaffCookies, 25);
    const view = expectResponse(await client.get("/admin/users/", expiredStaffCookies), `a view ${minutes} min in`);
    expect(view.status, `a view ${minutes} minutes into the staff session`).toBe(200);
  }
  await moveSessionClockBack(expiredStaffCookies, 25);
}, 180_000);

/** Moves the browser's staff session's times back, as if that many minutes had passed, with the dev tools' clock. */
async function moveSessionClockBack(cookies: Map<string, string>, minutes: number) {
  const moved = expectResponse(await client.post("/demo/", [["minutes", String(minutes)]], cookies), "session clock");
  expect(moved.status).toBe(302);
}

afterAll(async () => {
  sdk?.destroy();
  await server?.stop();
});

/** The admin without a second factor at the staff sign-in's password step. */
async function staffPasswordStep(prefix: string) {
  const fields: [string, string][] = [
    ["intent", "password"],
    ["email", admin.email],
    ["password", admin.password],
  ];
  return expectResponse(
    await client.post(`${prefix}/admin/sign-in/?to=admin`, fields, admin.cookies),
    "staff sign-in without a second factor",
  );
}

function cookiesOf(role: Role): Map<string, string> {
  return role === "visitor" ? new Map() : (role === "admin" ? admin : member).cookies;
}

async function canSignIn(email: string): Promise<boolean> {
  return bearerTokensFor(sdk, email, TEST_PASSWORD).then(
    () => true,
    () => false,
  );
}

describe("the admin pages", () => {
  /**
   * `to`: what brings the visitor back after signing in. A route name where it names the page; for a member's page
   * (a parameter in the path) only the path itself says which member.
   */
  const pages = () => [
    { path: "/admin/", to: () => "admin" },
    { path: "/admin/users/", to: () => "admin-users" },
    { path: `/admin/users/${targets.page.sub}/`, to: (path: string) => path },
    { path: "/admin/audit-log/", to: () => "admin-audit-log" },
    { path: "/admin/events/", to: () => "admin-events" },
    { path: "/admin/downloads/", to: () => "admin-downloads" },
    { path: "/admin/csv-import/", to: () => "admin-csv-import" },
    { path: "/admin/csv-import/template/", to: () => "admin-csv-import-template" },
    { path: "/admin/csv-import/columns/", to: () => "admin-csv-import-columns" },
  ];

  /** Who asks for a staff page, and the cookies their browser sends. */
  const staffPageRoles = () =>
    ({
      visitor: new Map<string, string>(),
      member: member.cookies,
      adminMemberSession: admin.cookies,
      adminSettingUp: settingUpCookies,
      idleStaffSession: idleStaffCookies,
      expiredStaffSession: expiredStaffCookies,
      staffSession: staffCookies,
    }) as const;

  for (const prefix of ["", "/en"]) {
    test(`${prefix || "/"}: only a staff session opens a staff page; everyone else gets the staff sign-in with to=`, async () => {
      for (const page of pages()) {
        const path = `${prefix}${page.path}`;
        const staffSignIn = `${prefix}/admin/sign-in/?${new URLSearchParams({ to: page.to(path) }).toString()}`;
        const answers: Record<string, [number, string]> = {};
        for (const [role, cookies] of Object.entries(staffPageRoles())) {
          const response = expectResponse(await client.get(path, cookies), `${role} GET ${path}`);
          answers[role] = [response.status, response.headers.get("location")?.[0] ?? ""];
        }
        expect(answers, path).toEqual({
          visitor: [302, staffSignIn],
          member: [302, staffSignIn],
          adminMemberSession: [302, staffSignIn],
          adminSettingUp: [302, staffSignIn],
          idleStaffSession: [302, staffSignIn],
          expiredStaffSession: [302, staffSignIn],
          staffSession: [200, ""],
        });
      }
    });
  }

  test("an admin without a second factor who signs in to the staff area sets the app up there, with no staff session before its code", async () => {
    for (const prefix of ["", "/en"]) {
      const response = await staffPasswordStep(prefix);
      expect([response.status, response.headers.get("location")?.[0]]).toEqual([
        302,
        `${prefix}/admin/sign-in/?to=admin`,
      ]);
      const setCookies = (response.headers.get("set-cookie") ?? []).join("\n");
      expect(setCookies).toMatch(/id_staff_factor_setup=[^;]/);
      expect(setCookies).not.toMatch(/id_staff_session=[^;]/);
      const cookies = withSetCookieLines(admin.cookies, response.headers.get("set-cookie") ?? []);
      const page = expectResponse(await client.get(`${prefix}/admin/sign-in/?to=admin`, cookies), "the set-up");
      expect(page.status).toBe(200);
      expect(page.body.toString()).toContain('data-testid="staff-setup-reason"');
      expect(page.body.toString()).toContain('data-testid="authenticator-key"');
    }
  });

  test("the detail page's actions: without a staff session the staff sign-in, a cross-site post 403, and nothing happens", async () => {
    const path = `/admin/users/${targets.page.sub}/`;
    const intents: [string, string][][] = [
      [["intent", "disable"]],
      [["intent", "sessions-end"]],
      [["intent", "refresh"]],
      [["intent", "two-step-off"]],
      [
        ["intent", "email-change"],
        ["email", `access-changed-${crypto.randomUUID().slice(0, 8)}@example.jp`],
      ],
    ];
    const staffSignIn = `/admin/sign-in/?${new URLSearchParams({ to: path }).toString()}`;
    for (const fields of intents) {
      const intent = fields[0]![1];
      const visitor = expectResponse(await client.post(path, fields), `visitor ${intent}`);
      const byMember = expectResponse(await client.post(path, fields, member.cookies), `member ${intent}`);
      const byAdmin = expectResponse(await client.post(path, fields, admin.cookies), `admin member session ${intent}`);
      const crossSite = expectResponse(await sendCrossSite(path, fields, staffCookies), `cross-site staff ${intent}`);
      expect([visitor.status, byMember.status, byAdmin.status, crossSite.status], intent).toEqual([302, 302, 302, 403]);
      for (const answer of [visitor, byMember, byAdmin]) {
        expect(answer.headers.get("location")?.[0], intent).toBe(staffSignIn);
      }
    }
    expect(await canSignIn(targets.page.email)).toBe(true);
  });
});

describe("the member's security page and its passkey forms", () => {
  for (const prefix of ["", "/en"]) {
    test(`${prefix || "/"}: a visitor is sent to sign-in; a member and an admin reach their own; a cross-site post 403`, async () => {
      const page = `${prefix}/my/security/`;
      const rename: [string, string][] = [
        ["intent", "passkey-rename"],
        ["credentialId", "AAAA"],
        ["name", "x"],
      ];
      const answers = async (send: (cookies: Map<string, string>) => ReturnType<typeof client.get>) => {
        const byRole: Record<Role, [number, string]> = { visitor: [0, ""], member: [0, ""], admin: [0, ""] };
        for (const role of ["visitor", "member", "admin"] as const) {
          const response = expectResponse(await send(cookiesOf(role)), `${role} ${page}`);
          byRole[role] = [response.status, response.headers.get("location")?.[0] ?? ""];
        }
        return byRole;
      };
      const signIn = `${prefix}/auth/sign-in/?to=my-security`;
      expect(await answers((cookies) => client.get(page, cookies))).toEqual({
        visitor: [302, signIn],
        member: [200, ""],
        admin: [200, ""],
      });
      // Nobody's passkey is renamed but one's own: the member and the admin are told it was not found.
      expect(await answers((cookies) => client.post(page, rename, cookies))).toEqual({
        visitor: [302, signIn],
        member: [302, page],
        admin: [302, page],
      });
      const crossSite = expectResponse(
        await sendCrossSite(
          page,
          [
            ["intent", "passkey-delete"],
            ["credentialId", "AAAA"],
          ],
          member.cookies,
        ),
        "cross-site passkey delete",
      );
      expect(crossSite.status).toBe(403);
    });
  }
});

describe("2-step verification's pages", () => {
  for (const prefix of ["", "/en"]) {
    test(`${prefix || "/"}: the set-up page is a signed-in member's own; the code step is nobody's without a sign-in under way`, async () => {
      const page = `${prefix}/my/security/authenticator/`;
      const signIn = `${prefix}/auth/sign-in/?to=my-security-authenticator`;
      const byRole: Record<Role, [number, string]> = { visitor: [0, ""], member: [0, ""], admin: [0, ""] };
      for (const role of ["visitor", "member", "admin"] as const) {
        const response = expectResponse(await client.get(page, cookiesOf(role)), `${role} ${page}`);
        byRole[role] = [response.status, response.headers.get("location")?.[0] ?? ""];
      }
      expect(byRole).toEqual({ visitor: [302, signIn], member: [200, ""], admin: [200, ""] });
      const crossSite = expectResponse(
        await sendCrossSite(page, [["intent", "turn-off"]], member.cookies),
        "cross-site turn-off",
      );
      expect(crossSite.status).toBe(403);

      // The code step without Cognito's challenge in its cookie: back to sign in, for everyone.
      const codeStep = `${prefix}/auth/sign-in/two-step/`;
      for (const role of ["visitor", "member"] as const) {
        const response = expectResponse(
          await client.post(
            codeStep,
            [
              ["intent", "code"],
              ["code", "123456"],
            ],
            cookiesOf(role),
          ),
          `${role} ${codeStep}`,
        );
        expect([response.status, response.headers.get("location")?.[0]], role).toEqual([
          302,
          `${prefix}/auth/sign-in/`,
        ]);
      }
    });
  }
});

describe("staff on another staff member", () => {
  /** Every change the detail page's actions make; the page offers none of them on a staff member's page. */
  const CHANGES: [string, string][][] = [
    [["intent", "disable"]],
    [["intent", "enable"]],
    [["intent", "sessions-end"]],
    [["intent", "two-step-off"]],
    [
      ["intent", "email-change"],
      ["email", `access-taken-over-${crypto.randomUUID().slice(0, 8)}@example.jp`],
    ],
  ];

  // Opened here, not with the others: the e-mail change and disabling need the password and code within 10 minutes.
  let onStaffCookies: Map<string, string>;
  beforeAll(async () => {
    onStaffCookies = await client.openStaffSession(onStaff);
  }, 120_000);

  for (const prefix of ["", "/en"]) {
    test(`${prefix || "/"}: the page offers the refresh only; a post of each change is 403 and changes nothing`, async () => {
      const path = `${prefix}/admin/users/${colleague.sub}/`;
      const page = expectResponse(await client.get(path, onStaffCookies), `GET ${path}`);
      expect(page.status).toBe(200);
      expect(page.body.toString("utf8")).toContain('data-testid="staff-account-notice"');
      expect(page.body.toString("utf8")).toContain("?confirm=refresh");
      for (const action of ["disable", "enable", "sessions-end", "two-step-off"]) {
        expect(page.body.toString("utf8"), action).not.toContain(`?confirm=${action}`);
      }
      expect(page.body.toString("utf8")).not.toContain('value="review-email-change"');

      for (const fields of CHANGES) {
        const intent = fields[0]![1];
        const refused = expectResponse(await client.post(path, fields, onStaffCookies), `admin ${intent}`);
        expect(refused.status, intent).toBe(403);
        expect(refused.body.toString("utf8"), intent).toContain(
          prefix ? "This member is staff" : "この会員はスタッフです",
        );
      }
      expect(await canSignIn(colleague.email)).toBe(true);
    });
  }
});

/** The admin's own browser, but the form came from another site (Origin and Sec-Fetch-Site say so). */
function sendCrossSite(path: string, fields: [string, string][], cookies: Map<string, string>) {
  return sendRawRequest(client.port, {
    method: "POST",
    target: path,
    headers: [
      ...client.headers(cookies),
      ["Origin", "https://evil.example"],
      ["Sec-Fetch-Site", "cross-site"],
      ["Content-Type", "application/x-www-form-urlencoded"],
    ],
    body: Buffer.from(formUrlEncode(fields)),
  });
}

/**
 * One admin call per endpoint, in an order where each succeeds for the admin (disable before enable); the target
 * differs where a call would spoil another (the e-mail change).
 */
const ADMIN_CALLS: { operationId: ApiOperationId; request: () => { path: string; body?: unknown; csv?: string } }[] = [
  { operationId: "adminListUsers", request: () => ({ path: "/api/admin/users?status=active&limit=5" }) },
  { operationId: "adminCountUsers", request: () => ({ path: "/api/admin/users/count?status=active" }) },
  { operationId: "adminGetUserPool", request: () => ({ path: "/api/admin/user-pool" }) },
  { operationId: "adminListAuditEvents", request: () => ({ path: "/api/admin/audit-events?action=user.refresh" }) },
  { operationId: "adminRefreshUser", request: () => ({ path: `/api/admin/users/${targets.actions.sub}/refresh` }) },
  { operationId: "adminGetUser", request: () => ({ path: `/api/admin/users/${targets.actions.sub}` }) },
  {
    operationId: "adminChangeUserEmail",
    request: () => ({
      path: `/api/admin/email-updates/${targets.email.sub}`,
      body: { email: `access-new-${crypto.randomUUID().slice(0, 8)}@example.jp` },
    }),
  },
  { operationId: "adminSignOutUser", request: () => ({ path: `/api/admin/users/${targets.actions.sub}/sign-out` }) },
  { operationId: "adminDisableUser", request: () => ({ path: `/api/admin/users/${targets.actions.sub}/disable` }) },
  { operationId: "adminEnableUser", request: () => ({ path: `/api/admin/users/${targets.actions.sub}/enable` }) },
  {
    operationId: "adminTurnOffTwoStep",
    request: () => ({ path: `/api/admin/users/${targets.actions.sub}/two-step-verification/disable` }),
  },
  { operationId: "adminExportUsers", request: () => ({ path: "/api/admin/users.csv?limit=5" }) },
  { operationId: "adminExportWithdrawalReasons", request: () => ({ path: "/api/admin/downloads/withdrawal-reasons" }) },
  {
    operationId: "adminExportEmailAddresses",
    request: () => ({ path: "/api/admin/downloads/email-addresses?locale=ja" }),
  },
  {
    operationId: "adminCsvImportUserCreate",
    request: () => ({
      path: "/api/admin/csv-import/user-create?dryRun=true",
      csv: IMPORT_CSV.replace("access-import@", "access-dry-run@"),
    }),
  },
  { operationId: "adminCsvImportJob", request: () => ({ path: `/api/admin/csv-import/jobs/${targets.importJobId}` }) },
  {
    operationId: "adminCsvImportCancel",
    request: () => ({ path: `/api/admin/csv-import/jobs/${targets.importJobId}/cancel` }),
  },
  {
    operationId: "adminCsvImportFailedRows",
    request: () => ({ path: `/api/admin/csv-import/jobs/${targets.importJobId}/failed-rows.csv` }),
  },
];

/**
 * Who calls the admin API: no token; a member's staff-client token (a member who signed in through the staff
 * client); an admin's members' token (the shared cookie's kind); the staff-client token of an admin without the
 * authenticator app (Cognito gives it for the password alone); an admin's staff-client token after the app's code.
 */
type ApiCaller = "visitor" | "member" | "admin-members-token" | "admin-without-app" | "admin";

async function tokenOf(caller: ApiCaller): Promise<string | null> {
  switch (caller) {
    case "visitor":
      return null;
    case "member":
      return member.staffToken();
    case "admin-members-token":
      return admin.accessToken;
    case "admin-without-app":
      return admin.staffToken();
    case "admin":
      return apiAdminToken();
  }
}

async function callApi(
  operationId: ApiOperationId,
  caller: ApiCaller,
  request: { path: string; body?: unknown; csv?: string },
) {
  const endpoint = API_ENDPOINTS.find((candidate) => candidate.operationId === operationId)!;
  const token = await tokenOf(caller);
  const response = await fetch(`${server.url}${request.path}`, {
    method: endpoint.method.toUpperCase(),
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(request.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(request.csv === undefined ? {} : { "Content-Type": "text/csv" }),
    },
    body: request.csv ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
  });
  // The CSV downloads answer CSV when they succeed; every error is the JSON envelope.
  const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
  return { status: response.status, json: (isJson ? await response.json() : await response.text()) as unknown };
}

describe("the admin API", () => {
  test("every admin endpoint has a row here", () => {
    const admins = API_ENDPOINTS.filter((endpoint) => "access" in endpoint && endpoint.access === "admin");
    expect(admins.map((endpoint) => endpoint.operationId).sort()).toEqual(
      ADMIN_CALLS.map((call) => call.operationId).sort(),
    );
  });

  test("no token: 401; a member's: 403 forbidden; an admin's members' token: 403 staff_token_required; an admin without the authenticator app: 403 authenticator_app_required; an admin's staff token with the app: 2xx", async () => {
    for (const { operationId, request } of ADMIN_CALLS) {
      const visitor = await callApi(operationId, "visitor", request());
      const byMember = await callApi(operationId, "member", request());
      const byMembersToken = await callApi(operationId, "admin-members-token", request());
      const withoutApp = await callApi(operationId, "admin-without-app", request());
      const byAdmin = await callApi(operationId, "admin", request());
      expect([visitor.status, byMember.status, byMembersToken.status, withoutApp.status], operationId).toEqual([
        401, 403, 403, 403,
      ]);
      expect(ErrorEnvelopeSchema.parse(visitor.json).error.code, operationId).toBe("unauthorized");
      expect(ErrorEnvelopeSchema.parse(byMember.json).error.code, operationId).toBe("forbidden");
      expect(ErrorEnvelopeSchema.parse(byMembersToken.json).error.code, operationId).toBe("staff_token_required");
      expect(ErrorEnvelopeSchema.parse(withoutApp.json).error.code, operationId).toBe("authenticator_app_required");
      expect(byAdmin.status, `${operationId}: ${JSON.stringify(byAdmin.json)}`).toBeGreaterThanOrEqual(200);
      expect(byAdmin.status, operationId).toBeLessThan(300);
    }
  });

  test("an admin's token on another staff member: each change is 403 target_is_staff, the read and the refresh 200", async () => {
    const changes: { operationId: ApiOperationId; path: string; body?: unknown }[] = [
      {
        operationId: "adminChangeUserEmail",
        path: `/api/admin/email-updates/${colleague.sub}`,
        body: { email: `access-taken-over-${crypto.randomUUID().slice(0, 8)}@example.jp` },
      },
      { operationId: "adminSignOutUser", path: `/api/admin/users/${colleague.sub}/sign-out` },
      { operationId: "adminDisableUser", path: `/api/admin/users/${colleague.sub}/disable` },
      { operationId: "adminEnableUser", path: `/api/admin/users/${colleague.sub}/enable` },
      { operationId: "adminTurnOffTwoStep", path: `/api/admin/users/${colleague.sub}/two-step-verification/disable` },
    ];
    for (const { operationId, ...request } of changes) {
      const refused = await callApi(operationId, "admin", request);
      expect(refused.status, operationId).toBe(403);
      expect(ErrorEnvelopeSchema.parse(refused.json).error.code, operationId).toBe("target_is_staff");
      const endpoint = API_ENDPOINTS.find((candidate) => candidate.operationId === operationId)!;
      expect(endpoint.errors as readonly string[], `${operationId} documents it`).toContain("target_is_staff");
    }
    for (const { operationId, path } of [
      { operationId: "adminGetUser", path: `/api/admin/users/${colleague.sub}` },
      { operationId: "adminRefreshUser", path: `/api/admin/users/${colleague.sub}/refresh` },
    ] as const) {
      expect((await callApi(operationId, "admin", { path })).status, operationId).toBe(200);
    }
    expect(await canSignIn(colleague.email)).toBe(true);
  });

  test("a token of a sign-in before the authenticator app was turned on stays refused, refreshed or not; one after it works", async () => {
    const staff = await createStaffAdmin(server.standInPort, "access-app-later");
    const before = await staffTokensFor(sdk, staff);
    const withApp = await turnOnAuthenticatorApp(server, staff);
    const refreshed = await sdk.cognito.send(
      new InitiateAuthCommand({
        ClientId: sdk.staffClientId,
        AuthFlow: "REFRESH_TOKEN_AUTH",
        AuthParameters: { REFRESH_TOKEN: before.refreshToken },
      }),
    );
    const after = await staffTokensFor(sdk, withApp);
    const poolStatus = async (token: string) => {
      const response = await fetch(`${server.url}/api/admin/user-pool`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      return [response.status, ((await response.json()) as { error?: { code: string } }).error?.code];
    };
    expect(await poolStatus(before.accessToken)).toEqual([403, "authenticator_app_required"]);
    expect(await poolStatus(refreshed.AuthenticationResult?.AccessToken ?? "")).toEqual([
      403,
      "authenticator_app_required",
    ]);
    expect(await poolStatus(after.accessToken)).toEqual([200, undefined]);
  });

  test("the members' API takes no staff-client token, an admin's included: 401", async () => {
    const response = await fetch(`${server.url}/api/user-devices`, {
      headers: { Authorization: `Bearer ${await admin.staffToken()}` },
    });
    expect(response.status).toBe(401);
    expect(ErrorEnvelopeSchema.parse(await response.json()).error.code).toBe("unauthorized");
  });

  test("a member cannot use the member API on another member's sub", async () => {
    const response = await fetch(`${server.url}/api/refresh-user`, {
      method: "POST",
      headers: { Authorization: `Bearer ${member.accessToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ userSub: targets.page.sub }),
    });
    expect(response.status).toBe(403);
    expect(ErrorEnvelopeSchema.parse(await response.json()).error.code).toBe("forbidden");
  });
});

describe("a staff member removed from the admin group", () => {
  test("loses /api/admin/* and /admin/* within 60 seconds, though their tokens still name the group", async () => {
    // A staff session of their own for the pages, and the staff client's token for the API.
    const removed = await createApiStaff(server, "access-removed");
    const token = (await staffTokensFor(sdk, removed)).accessToken;
    const cookies = await client.openStaffSession(removed);
    const statuses = async () => {
      const api = await fetch(`${server.url}/api/admin/user-pool`, { headers: { Authorization: `Bearer ${token}` } });
      await api.body?.cancel();
      const page = expectResponse(await client.get("/en/admin/users/", cookies), "GET /en/admin/users/");
      return [api.status, page.status];
    };
    // Staff once the group's next reading (every second here) has them: a token issued in the second of the last
    // reading is not newer than it.
    await expect.poll(statuses, { timeout: 30_000 }).toEqual([200, 200]);

    await sdk.cognito.send(
      new AdminRemoveUserFromGroupCommand({ UserPoolId: sdk.userPoolId, Username: removed.email, GroupName: "admin" }),
    );
    // The requirement's own bound: access ends within a minute of the removal (here the group is read every second).
    const deadline = Date.now() + 60_000;
    let now = await statuses();
    while (now.join() !== "403,403" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      now = await statuses();
    }
    expect(now).toEqual([403, 403]);
    expect(decodeJwt(token)["cognito:groups"]).toContain("admin");
  });
});
