import { AdminUpdateUserAttributesCommand } from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type ApiOperationId, ErrorEnvelopeSchema, apiEndpoint } from "~/api/contract";
import { type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { createApiStaff, staffTokenSource, staffTokensFor } from "../../support/staff-api-access";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * The admin API through a real server: the production build (preview mode) in another process, tokens from its
 * Cognito stand-in through the AWS SDK, an admin being a member of the admin group. Every answer is checked against
 * the contract's schema for its endpoint (success or the error envelope). Who may call what (visitor, member,
 * admin) is tests/integration/staff/admin-access.test.ts.
 */

/** Above what the other tests' admin does in this file, low enough for one test to reach. */
const STAFF_ACTION_LIMIT = 40;

let server: ServerProcess;
let sdk: StandInSdk;
let adminToken: () => Promise<string>;

beforeAll(async () => {
  server = await startServerProcess("preview", {
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    RATE_LIMIT_STAFF_ACTION_PER_ADMIN: String(STAFF_ACTION_LIMIT),
  });
  sdk = await connectToStandIn(server.standInPort);
  adminToken = staffTokenSource(sdk, await createApiStaff(server, "api-admin"));
}, 180_000);

afterAll(async () => {
  sdk?.destroy();
  await server?.stop();
});

async function newMember(label: string) {
  const { email } = await createTestMember(server.standInPort, label);
  const { sub, accessToken } = await bearerTokensFor(sdk, email, TEST_PASSWORD);
  return { email, sub, accessToken };
}

/** Calls the API as the admin (or with `token`) and checks the answer against the endpoint's contract. */
async function call(operationId: ApiOperationId, path: string, options: { body?: unknown; token?: string } = {}) {
  const endpoint = apiEndpoint(operationId);
  const response = await fetch(`${server.url}${path}`, {
    method: endpoint.method.toUpperCase(),
    headers: {
      "Accept-Language": "en",
      Authorization: `Bearer ${options.token ?? (await adminToken())}`,
      ...(options.body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const json: unknown = await response.json();
  const schema = response.ok ? endpoint.success.schema : ErrorEnvelopeSchema;
  const parsed = schema.safeParse(json);
  expect(parsed.success, `${operationId} ${response.status}: ${JSON.stringify(json)}`).toBe(true);
  return { status: response.status, requestId: response.headers.get("X-Request-Id"), json: json as never };
}

/** Whether the member API still takes a token (GET /api/user-devices needs a live sign-in). */
async function memberTokenStatus(accessToken: string): Promise<number> {
  const response = await fetch(`${server.url}/api/user-devices`, {
    headers: { Authorization: `Bearer ${accessToken}` },
  });
  await response.body?.cancel();
  return response.status;
}

async function canSignIn(email: string): Promise<boolean> {
  return bearerTokensFor(sdk, email, TEST_PASSWORD).then(
    () => true,
    () => false,
  );
}

test("POST /api/admin/email-updates/{sub} changes the address; the member signs in with the new one", async () => {
  const member = await newMember("api-email");
  const newEmail = `api-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;

  const answer = await call("adminChangeUserEmail", `/api/admin/email-updates/${member.sub}`, {
    body: { email: newEmail },
  });

  expect(answer.status).toBe(200);
  expect(answer.json).toMatchObject({ oldEmail: member.email, newEmail, notified: { oldAddress: true } });
  expect(await canSignIn(newEmail)).toBe(true);
  expect(await canSignIn(member.email)).toBe(false);
});

test("the e-mail update refuses the same address (422), another member's (409), bad input (422) and an unknown sub (404)", async () => {
  const member = await newMember("api-email-refused");
  const other = await newMember("api-email-other");
  const path = `/api/admin/email-updates/${member.sub}`;

  const same = await call("adminChangeUserEmail", path, { body: { email: member.email } });
  const taken = await call("adminChangeUserEmail", path, { body: { email: other.email } });
  const invalid = await call("adminChangeUserEmail", path, { body: { email: "not an address" } });
  const unknown = await call("adminChangeUserEmail", `/api/admin/email-updates/${crypto.randomUUID()}`, {
    body: { email: `x-${member.email}` },
  });
  const malformed = await call("adminChangeUserEmail", "/api/admin/email-updates/not-a-sub", {
    body: { email: `x-${member.email}` },
  });

  expect([same.status, same.json]).toMatchObject([422, { error: { code: "email_unchanged" } }]);
  expect([taken.status, taken.json]).toMatchObject([409, { error: { code: "email_unavailable" } }]);
  expect([invalid.status, invalid.json]).toMatchObject([
    422,
    { error: { code: "validation_failed", fields: { email: [expect.any(String)] } } },
  ]);
  expect([unknown.status, unknown.json]).toMatchObject([404, { error: { code: "not_found" } }]);
  expect([malformed.status, malformed.json]).toMatchObject([
    422,
    { error: { code: "validation_failed", fields: { sub: [expect.any(String)] } } },
  ]);
  expect(await canSignIn(member.email)).toBe(true);
});

test("POST /api/admin/users/{sub}/sign-out ends the member's sign-ins: their token is refused from then on", async () => {
  const member = await newMember("api-sign-out");
  expect(await memberTokenStatus(member.accessToken)).toBe(200);

  const answer = await call("adminSignOutUser", `/api/admin/users/${member.sub}/sign-out`);

  expect(answer.status).toBe(200);
  expect(answer.json).toMatchObject({ globalSignOut: true });
  expect(await memberTokenStatus(member.accessToken)).toBe(401);
});

test("disable refuses the member's token and sign-in at once; enable lets them sign in again", async () => {
  const member = await newMember("api-disable");

  const disabled = await call("adminDisableUser", `/api/admin/users/${member.sub}/disable`);
  expect([disabled.status, disabled.json]).toMatchObject([200, { enabled: false }]);
  expect(await memberTokenStatus(member.accessToken)).toBe(401);
  expect(await canSignIn(member.email)).toBe(false);

  const enabled = await call("adminEnableUser", `/api/admin/users/${member.sub}/enable`);
  expect([enabled.status, enabled.json]).toEqual([200, { enabled: true }]);
  expect(await canSignIn(member.email)).toBe(true);
});

test("the staff actions name an unknown sub with 404 and a malformed one with 422", async () => {
  const actions = [
    ["adminSignOutUser", "sign-out"],
    ["adminDisableUser", "disable"],
    ["adminEnableUser", "enable"],
  ] as const;
  for (const [operationId, verb] of actions) {
    const unknown = await call(operationId, `/api/admin/users/${crypto.randomUUID()}/${verb}`);
    const malformed = await call(operationId, `/api/admin/users/12345/${verb}`);
    expect([unknown.status, malformed.status], verb).toEqual([404, 422]);
  }
});

test("refresh reads the member into the directory and says what changed; the detail shows it with the audit trail", async () => {
  const member = await newMember("api-refresh");
  const refreshed = await call("adminRefreshUser", `/api/admin/users/${member.sub}/refresh`);
  expect(refreshed.status).toBe(200);
  expect(refreshed.json).toMatchObject({ missing: false });

  await sdk.cognito.send(
    new AdminUpdateUserAttributesCommand({
      UserPoolId: sdk.userPoolId,
      Username: member.email,
      UserAttributes: [{ Name: "family_name", Value: "Staffrefresh" }],
    }),
  );
  const again = await call("adminRefreshUser", `/api/admin/users/${member.sub}/refresh`);
  expect(again.json).toMatchObject({ changes: { familyName: { before: null, after: "Staffrefresh" } } });

  const detail = await call("adminGetUser", `/api/admin/users/${member.sub}`);
  expect(detail.status).toBe(200);
  expect(detail.json).toMatchObject({
    sub: member.sub,
    directory: { email: member.email, familyName: "Staffrefresh", enabled: true },
  });
  const trail = (detail.json as { auditEvents: { action: string; requestId: string }[] }).auditEvents;
  expect(trail.map((event) => event.action)).toEqual(["user.refresh", "user.refresh"]);
  expect(trail[0]!.requestId).toBe(again.requestId);
});

test("search finds a member by e-mail prefix and the count agrees; bad parameters are 422 per field", async () => {
  const label = `api-search-${crypto.randomUUID().slice(0, 8)}`;
  const members = [await newMember(label), await newMember(label)];
  for (const member of members) await call("adminRefreshUser", `/api/admin/users/${member.sub}/refresh`);

  const page = await call("adminListUsers", `/api/admin/users?q=${label}&limit=1&status=`);
  const count = await call("adminCountUsers", `/api/admin/users/count?q=${label}`);
  const invalid = await call("adminListUsers", "/api/admin/users?status=sleeping&limit=0");

  expect(page.status).toBe(200);
  const first = page.json as { members: { email: string }[]; nextCursor: string | null };
  expect(first.members).toHaveLength(1);
  expect(first.nextCursor).not.toBeNull();
  const next = await call("adminListUsers", `/api/admin/users?q=${label}&limit=1&after=${first.nextCursor}`);
  const second = next.json as { members: { email: string }[] };
  expect([...first.members, ...second.members].map((member) => member.email).sort()).toEqual(
    members.map((member) => member.email).sort(),
  );
  expect(count.json).toEqual({ count: 2 });
  expect([invalid.status, invalid.json]).toMatchObject([
    422,
    { error: { code: "validation_failed", fields: { status: [expect.any(String)], limit: [expect.any(String)] } } },
  ]);
});

test("the detail and refresh name an unknown sub with 404 and a malformed one with 422", async () => {
  const unknown = crypto.randomUUID();
  expect((await call("adminGetUser", `/api/admin/users/${unknown}`)).status).toBe(404);
  expect((await call("adminRefreshUser", `/api/admin/users/${unknown}/refresh`)).status).toBe(404);
  expect((await call("adminGetUser", "/api/admin/users/not-a-sub")).status).toBe(422);
  expect((await call("adminRefreshUser", "/api/admin/users/not-a-sub/refresh")).status).toBe(422);
});

test("the user pool: Cognito's description, the device limit and the directory's freshness", async () => {
  const pool = await call("adminGetUserPool", "/api/admin/user-pool");
  expect(pool.status).toBe(200);
  expect(pool.json).toMatchObject({ id: sdk.userPoolId, deviceLimit: expect.any(Number) });
});

test("staff actions are limited per admin: past the limit 429 with Retry-After, nothing done; other admins unaffected", async () => {
  const busy = await createApiStaff(server, "api-busy-admin");
  const busyToken = (await staffTokensFor(sdk, busy)).accessToken;
  const member = await newMember("api-rate-limited");
  for (let attempt = 0; attempt < STAFF_ACTION_LIMIT; attempt++) {
    const unknown = await call("adminRefreshUser", `/api/admin/users/${crypto.randomUUID()}/refresh`, {
      token: busyToken,
    });
    expect(unknown.status).toBe(404);
  }

  const response = await fetch(`${server.url}/api/admin/users/${member.sub}/disable`, {
    method: "POST",
    headers: { Authorization: `Bearer ${busyToken}` },
  });
  expect(response.status).toBe(429);
  expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
  expect(ErrorEnvelopeSchema.parse(await response.json()).error.code).toBe("rate_limited");
  expect(await canSignIn(member.email)).toBe(true);
  expect((await call("adminRefreshUser", `/api/admin/users/${member.sub}/refresh`)).status).toBe(200);
});

test("the audit log lists the staff actions on a member, newest first, by page; bad filters are 422", async () => {
  const member = await newMember("api-audit");
  const signOut = await call("adminSignOutUser", `/api/admin/users/${member.sub}/sign-out`);
  const disable = await call("adminDisableUser", `/api/admin/users/${member.sub}/disable`);

  const first = await call("adminListAuditEvents", `/api/admin/audit-events?targetSub=${member.sub}&limit=1&actor=`);
  const page = first.json as { events: { action: string; requestId: string }[]; nextCursor: string | null };
  const second = await call(
    "adminListAuditEvents",
    `/api/admin/audit-events?targetSub=${member.sub}&limit=1&cursor=${page.nextCursor}`,
  );
  const invalid = await call("adminListAuditEvents", "/api/admin/audit-events?action=user.delete&from=yesterday");

  expect(page.events).toEqual([expect.objectContaining({ action: "user.disable", requestId: disable.requestId })]);
  expect((second.json as typeof page).events).toEqual([
    expect.objectContaining({ action: "user.sessions-end", requestId: signOut.requestId }),
  ]);
  expect([invalid.status, invalid.json]).toMatchObject([
    422,
    { error: { code: "validation_failed", fields: { action: [expect.any(String)], from: [expect.any(String)] } } },
  ]);
});

// ---- the staff CSV import (app/domain/csv-import/; the job itself: csv-import/import-jobs.db.test.ts)

const IMPORT_HEADER =
  "email,family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language";
const importRow = (email: string) => `${email},山田,花子,1990,JP,東京都,design,設計事務所,en`;

/** Posts a CSV file to the import endpoint as the admin; the answer is checked against the contract. */
async function postImport(csv: string, query: string) {
  const endpoint = apiEndpoint("adminCsvImportUserCreate");
  const response = await fetch(`${server.url}/api/admin/csv-import/user-create${query}`, {
    method: "POST",
    headers: { "Accept-Language": "en", Authorization: `Bearer ${await adminToken()}`, "Content-Type": "text/csv" },
    body: csv,
  });
  const json: unknown = await response.json();
  const parsed = (response.ok ? endpoint.success.schema : ErrorEnvelopeSchema).safeParse(json);
  expect(parsed.success, `${response.status}: ${JSON.stringify(json)}`).toBe(true);
  return { status: response.status, location: response.headers.get("Location"), json: json as never };
}

test("POST /api/admin/csv-import/user-create reports every bad row by row and column (422) and stores nothing", async () => {
  const csv = [
    IMPORT_HEADER,
    importRow("ok@csv-api.example.jp"),
    importRow("not-an-address"),
    "x@csv-api.example.jp,山田",
  ];
  const refused = await postImport(csv.join("\r\n"), "?dryRun=true");
  expect(refused.status).toBe(422);
  expect(refused.json).toMatchObject({
    error: {
      code: "validation_failed",
      problems: {
        totalRows: 3,
        problemCount: 2,
        problems: [
          { row: 3, column: "email", code: "invalidEmail", message: "This is not a valid e-mail address." },
          { row: 4, column: null, code: "cellCount" },
        ],
      },
    },
  });
});

test("a CSV import through the API: dry run, then a started job (202, Location) that finishes; its failed rows as CSV", async () => {
  const run = crypto.randomUUID().slice(0, 8);
  const emails = [0, 1, 2].map((index) => `import-${run}-${index}@csv-api.example.jp`);
  const csv = [IMPORT_HEADER, ...emails.map(importRow)].join("\r\n");

  const dryRun = await postImport(csv, "?dryRun=true");
  expect([dryRun.status, dryRun.json]).toMatchObject([200, { report: { totalRows: 3, problemCount: 0 }, job: null }]);

  const started = await postImport(csv, "?fileName=members.csv");
  expect(started.status).toBe(202);
  const job = (started.json as { job: { id: string; state: string; fileName: string } }).job;
  expect(job).toMatchObject({ state: "queued", fileName: "members.csv" });
  expect(started.location).toBe(`/api/admin/csv-import/jobs/${job.id}`);

  await expect
    .poll(async () => ((await call("adminCsvImportJob", started.location!)).json as { state: string }).state, {
      timeout: 20_000,
    })
    .toBe("completed");
  const done = await call("adminCsvImportJob", started.location!);
  expect(done.json).toMatchObject({ counts: { created: 3, failed: 0 }, remaining: 0 });
  // Cancelling a finished job changes nothing.
  expect((await call("adminCsvImportCancel", `${started.location}/cancel`)).json).toMatchObject({ state: "completed" });

  const download = await fetch(`${server.url}${started.location}/failed-rows.csv?encoding=shift_jis`, {
    headers: { Authorization: `Bearer ${await adminToken()}` },
  });
  expect(download.status).toBe(200);
  expect(download.headers.get("Content-Type")).toBe("text/csv; charset=shift_jis");
  expect(download.headers.get("Content-Disposition")).toContain("import-failed-rows");
  // No failed row: the header alone.
  expect(new TextDecoder().decode(await download.arrayBuffer()).trim()).toBe(
    `${IMPORT_HEADER},source_row,failure_code,failure_reason`,
  );
  expect((await call("adminCsvImportJob", `/api/admin/csv-import/jobs/${crypto.randomUUID()}`)).status).toBe(404);
});

test("the import takes a file well above the API's 32 KB body limit, up to its own 5 MB", async () => {
  const rows = Array.from({ length: 600 }, (_, index) => importRow(`big-${index}@csv-api.example.jp`));
  const csv = [IMPORT_HEADER, ...rows].join("\r\n");
  expect(new TextEncoder().encode(csv).length).toBeGreaterThan(32 * 1024);
  const accepted = await postImport(csv, "?dryRun=true");
  expect([accepted.status, accepted.json]).toMatchObject([200, { report: { totalRows: 600, problemCount: 0 } }]);

  const tooLarge = await fetch(`${server.url}/api/admin/csv-import/user-create?dryRun=true`, {
    method: "POST",
    headers: { Authorization: `Bearer ${await adminToken()}`, "Content-Type": "text/csv" },
    body: new Uint8Array(5 * 1024 * 1024 + 1),
  });
  expect(tooLarge.status).toBe(413);
});
