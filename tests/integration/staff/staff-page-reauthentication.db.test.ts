import { randomUUID } from "node:crypto";
import { parse } from "csv-parse/sync";
import { beforeAll, expect, test } from "vitest";
import { getImportJobProgress } from "~/domain/csv-import/import-jobs.server";
import {
  type SignedInStaff,
  beginStaffSignIn,
  completeStaffSignIn,
  moveStaffSessionTimeBack,
  resolveStaffSession,
} from "~/domain/sessions/staff-sessions.server";
import { MAX_PAGE_SIZE } from "~/domain/staff/member-search.server";
import { listAuditEvents } from "~/domain/staff/staff-audit-log.server";
import { staffContext, staffStandingContext } from "~/router-context.server";
import * as csvImportPage from "~/routes/staff/admin-csv-import";
import * as downloadFile from "~/routes/staff/admin-download";
import * as downloadsPage from "~/routes/staff/admin-downloads";
import { pathFor } from "~/routing/route-table";
import { type StaffWithAuthenticator, nextAuthenticatorCode } from "../../support/admin-members";
import { importCsv } from "../../support/csv-import-files";
import { insertDirectoryMembers, microsOf } from "../../support/directory-members";
import { routeCalls, settle } from "../../support/route-calls";
import { staffWithAuthenticatorIn } from "../../support/staff-in-process";
import { useTestServices } from "../../support/test-services";

// The staff pages' two bulk actions, a full users.csv and starting a CSV import, need the password and code entered
// on this staff session within the last 10 minutes, as the detail page's high-impact actions do
// (staff-sessions.db.test.ts). On real parts: the staff session opened through the stand-in's staff client and its
// code challenge over HTTP, PGlite (or PostgreSQL); the session's times moved back as the dev tools' clock does. The
// route modules are called as the HTTP server calls them, with the staff layout's reading of the session.
const ORIGIN = "http://localhost:3994";
const app = useTestServices({ label: "staff-page-reauthentication", origin: ORIGIN });
const calls = routeCalls(ORIGIN, () => app.services);
const TAG = `reauth-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  // Three members the download's search finds by the tag.
  await insertDirectoryMembers(
    app.db,
    [0, 1, 2].map((index) => ({
      sub: randomUUID(),
      email: `${TAG}-${index}@example.jp`,
      signedUpMicros: microsOf(new Date(Date.UTC(2026, 0, 1, 0, index))),
    })),
  );
});

/**
 * A staff session opened with the password and the authenticator's code, as the staff page layout then reads it;
 * `minutesAgo`: its times moved back that far (the confirmation with them).
 */
async function staffSession(staff: StaffWithAuthenticator, minutesAgo: number): Promise<SignedInStaff> {
  const started = await beginStaffSignIn(app.services, {
    ...staff,
    userAgent: null,
    clientIp: "127.0.0.1",
    locale: "ja",
  });
  if (started.kind !== "codeRequired") throw new Error(`staff sign-in ended as ${started.kind}`);
  const opened = await completeStaffSignIn(app.services, { ...started, code: await nextAuthenticatorCode(staff) });
  if (opened.kind !== "opened") throw new Error(`staff code step ended as ${opened.kind}`);
  await moveStaffSessionTimeBack(app.db, { sessionId: opened.sessionId, minutes: minutesAgo });
  const resolved = await resolveStaffSession(app.services, opened);
  if (resolved.kind !== "staff") throw new Error(`the staff session is ${resolved.kind}`);
  return resolved.staff;
}

async function staffContextFor(request: Request, staff: SignedInStaff) {
  const context = await calls.context(request, null);
  context.set(staffContext, staff);
  // What the staff layout's middleware reads from the member directory (readStaffStanding): staff now.
  context.set(staffStandingContext, "staff");
  return context;
}

/** A download from the downloads page's form (path and query as the browser sends them); users.csv by default. */
async function download(staff: SignedInStaff, path: string, file = "users.csv") {
  const request = calls.get(path);
  const answer = await settle(
    downloadFile.loader(calls.args(request, await staffContextFor(request, staff), { file })),
  );
  return answer as Response;
}

const staffSignIn = (locale: "ja" | "en", to: string) =>
  `${pathFor("admin-sign-in", locale)}?${new URLSearchParams({ mode: "confirm", to }).toString()}`;

async function auditCount(staff: SignedInStaff, action: string) {
  return (await listAuditEvents(app.db, { actor: staff.email, action })).events.length;
}

const recordsOf = async (response: Response) => parse(await response.text(), { bom: true }) as string[][];

test("a full users.csv: confirmed more than 10 minutes ago, the staff sign-in and back to the filled-in form, nothing exported; confirmed just now, the file", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "reauth-export");
  const stale = await staffSession(staff, 11);

  for (const locale of ["ja", "en"] as const) {
    const query = new URLSearchParams({ q: TAG, all: "1", header: "0" });
    const asked = await download(stale, `${pathFor("admin-download", locale, { file: "users.csv" })}?${query}`);
    expect(asked.status, locale).toBe(302);
    const back = `${pathFor("admin-downloads", locale)}?${new URLSearchParams({ q: TAG, all: "1", header: "0", form: "users" })}`;
    expect(asked.headers.get("Location"), locale).toBe(staffSignIn(locale, back));
    expect(await auditCount(stale, "data.export")).toBe(0);

    // Back from the confirmation: the downloads page shows the users form with what was typed, and no error.
    const pageRequest = calls.get(back);
    const returned = (await settle(async () =>
      downloadsPage.loader(calls.args(pageRequest, await staffContextFor(pageRequest, stale))),
    )) as { data: { returnedKind: string; invalid: boolean; values: Record<string, string> }; init: ResponseInit };
    expect(returned.init.status).toBe(200);
    expect(returned.data).toMatchObject({
      returnedKind: "users",
      invalid: false,
      values: { q: TAG, all: "1", header: "0" },
    });
  }

  // A page of rows needs no recent confirmation.
  const page = await download(
    stale,
    `${pathFor("admin-download", "ja", { file: "users.csv" })}?q=${TAG}&limit=2&header=0`,
  );
  expect(page.status).toBe(200);
  expect((await recordsOf(page)).map((row) => row[1])).toEqual([`${TAG}-0@example.jp`, `${TAG}-1@example.jp`]);
  expect(await auditCount(stale, "data.export")).toBe(1);

  // Confirmed just now (the staff sign-in in confirm mode opens a new staff session): every matching member.
  const fresh = await staffSession(staff, 0);
  const all = await download(
    fresh,
    `${pathFor("admin-download", "ja", { file: "users.csv" })}?q=${TAG}&all=1&header=0&limit=2`,
  );
  expect(all.status).toBe(200);
  expect((await recordsOf(all)).map((row) => row[1])).toEqual([0, 1, 2].map((index) => `${TAG}-${index}@example.jp`));
  expect(await auditCount(fresh, "data.export")).toBe(2);
});

test("more rows than one page of the member list, and the newsletter's addresses: confirmed more than 10 minutes ago, the staff sign-in and back to the form, nothing exported", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "reauth-pages");
  const stale = await staffSession(staff, 11);
  const asks: { file: string; kind: string; query: Record<string, string> }[] = [
    { file: "users.csv", kind: "users", query: { q: TAG, limit: String(MAX_PAGE_SIZE + 1) } },
    // The form's default limit (10,000 rows).
    { file: "users.csv", kind: "users", query: { q: TAG } },
    { file: "email-addresses.csv", kind: "email-addresses", query: { locale: "ja" } },
  ];
  for (const { file, kind, query } of asks) {
    const path = `${pathFor("admin-download", "en", { file })}?${new URLSearchParams(query)}`;
    const asked = await download(stale, path, file);
    expect(asked.status, path).toBe(302);
    const back = `${pathFor("admin-downloads", "en")}?${new URLSearchParams({ ...query, form: kind })}`;
    expect(asked.headers.get("Location"), path).toBe(staffSignIn("en", back));
  }
  expect(await auditCount(stale, "data.export")).toBe(0);

  // At most one page of the list, as the list itself shows it: no confirmation.
  const page = await download(
    stale,
    `${pathFor("admin-download", "ja", { file: "users.csv" })}?q=${TAG}&limit=${MAX_PAGE_SIZE}&header=0`,
  );
  expect(page.status).toBe(200);
  expect(await recordsOf(page)).toHaveLength(3);
  expect(await auditCount(stale, "data.export")).toBe(1);

  const fresh = await staffSession(staff, 0);
  const addresses = await download(
    fresh,
    `${pathFor("admin-download", "ja", { file: "email-addresses.csv" })}?locale=ja`,
    "email-addresses.csv",
  );
  expect(addresses.status).toBe(200);
  expect((await recordsOf(addresses))[0]).toContain("unsubscribe_url");
  expect(await auditCount(fresh, "data.export")).toBe(2);
});

/** The import page's action: a file for the dry run, or the checked job's buttons. */
async function importPost(staff: SignedInStaff, fields: Record<string, string> | { file: string }) {
  const path = pathFor("admin-csv-import", "ja");
  let request: Request;
  if ("file" in fields) {
    const body = new FormData();
    body.set("file", new File([fields.file], "members.csv", { type: "text/csv" }));
    request = new Request(`${ORIGIN}${path}`, { method: "POST", body });
  } else {
    request = calls.post(path, fields);
  }
  return (await settle(csvImportPage.action(calls.args(request, await staffContextFor(request, staff))))) as Response;
}

/** A clean file's dry run: the job waiting to start, by the id the page's redirect names. */
async function checkedJob(staff: SignedInStaff, label: string): Promise<string> {
  const checked = await importPost(staff, { file: importCsv([`${TAG}-${label}@example.jp`]) });
  expect(checked.status).toBe(302);
  const jobId = new URL(checked.headers.get("Location")!, ORIGIN).searchParams.get("ready");
  expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
  return jobId!;
}

test("starting an import: confirmed more than 10 minutes ago, the staff sign-in and back to the checked file, nothing started; the dry run and discarding need no confirmation", async () => {
  const staff = await staffWithAuthenticatorIn(app.services, app.standInPort, "reauth-import");
  const stale = await staffSession(staff, 11);
  const jobId = await checkedJob(stale, "import");

  const ready = `${pathFor("admin-csv-import", "ja")}?ready=${jobId}`;
  const asked = await importPost(stale, { intent: "start", jobId });
  expect(asked.status).toBe(302);
  expect(asked.headers.get("Location")).toBe(staffSignIn("ja", ready));
  expect((await getImportJobProgress(app.db, jobId))?.state).toBe("validated");
  expect(await auditCount(stale, "csv-import.start")).toBe(0);

  // Back from the confirmation: the page offers the checked file's start again.
  const pageRequest = calls.get(ready);
  const page = await csvImportPage.loader(calls.args(pageRequest, await staffContextFor(pageRequest, stale)));
  expect(page.ready).toMatchObject({ id: jobId, totalRows: 1 });

  // Discarding another checked file creates nobody: no confirmation asked.
  const other = await checkedJob(stale, "discarded");
  const discarded = await importPost(stale, { intent: "discard", jobId: other });
  expect(discarded.headers.get("Location")).toBe(pathFor("admin-csv-import", "ja"));
  expect((await getImportJobProgress(app.db, other))?.state).toBe("cancelled");

  const fresh = await staffSession(staff, 0);
  const started = await importPost(fresh, { intent: "start", jobId });
  expect(started.headers.get("Location")).toBe(pathFor("admin-csv-import-job", "ja", { id: jobId }));
  expect((await getImportJobProgress(app.db, jobId))?.state).toBe("queued");
  expect(await auditCount(fresh, "csv-import.start")).toBe(1);
});
