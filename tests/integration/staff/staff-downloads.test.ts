import net from "node:net";
import { expect, test } from "vitest";
import { MAX_CONCURRENT_EXPORTS } from "~/domain/staff/member-export.server";
import type { StaffWithAuthenticator } from "../../support/admin-members";
import { connectToStandIn } from "../../support/bearer-tokens";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";
import { useTestServers } from "../../support/session-servers";
import { staffSignedIn } from "../../support/session-http";

/**
 * The staff's downloads as a browser and an API caller reach them through the production build: what a request
 * that never reads its file leaves behind (docs/security.md, "Staff downloads and uploads"), and which page requests
 * may start an export at all. The files' content is admin-downloads.test.ts's and staff/member-export.db.test.ts's.
 */

/** Low enough that a test reaches it in a few requests; each test has an admin of its own, so limits never meet. */
const STAFF_LIMIT = 16;
const servers = useTestServers({ main: { RATE_LIMIT_STAFF_ACTION_PER_ADMIN: String(STAFF_LIMIT) } });

async function adminWithToken(label: string): Promise<StaffWithAuthenticator & { token: string }> {
  const admin = await createApiStaff(servers.main.process, label);
  const sdk = await connectToStandIn(servers.main.standInPort);
  try {
    const { accessToken } = await staffTokensFor(sdk, admin);
    // After the sign-in, which used up a time step of the admin's authenticator.
    return { ...admin, token: accessToken };
  } finally {
    sdk.destroy();
  }
}

function apiDownload(path: string, token: string, method = "GET") {
  return fetch(`${servers.main.origin}${path}`, { method, headers: { Authorization: `Bearer ${token}` } });
}

/** A download link followed in a browser: `site` is where the link was (Sec-Fetch-Site), undefined for no header. */
function pageDownload(path: string, cookie: string, site: string | undefined = "same-origin", method = "GET") {
  return fetch(`${servers.main.origin}${path}`, {
    method,
    redirect: "manual",
    headers: {
      Cookie: cookie,
      "Accept-Language": "ja",
      ...(site ? { "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" } : {}),
    },
  });
}

/** Sends a GET and hangs up at once, as a client that leaves before the answer does. */
async function abortedRequest(path: string, headers: Record<string, string>) {
  const url = new URL(servers.main.origin);
  const socket = net.connect(Number(url.port), "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${lines.join("")}\r\n`);
  socket.destroy();
}

/** The data.export entries of the audit log by this admin, as the admin API lists them. */
async function exportsRecordedFor(admin: { email: string }, token: string): Promise<number> {
  const query = new URLSearchParams({ actor: admin.email, action: "data.export" });
  const response = await apiDownload(`/api/admin/audit-events?${query}`, token);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { events: unknown[] };
  return body.events.length;
}

test("HEAD requests never keep an export slot: after more of them than there are slots, GET downloads", async () => {
  const admin = await adminWithToken("head-api");
  for (let index = 0; index <= MAX_CONCURRENT_EXPORTS; index++) {
    const head = await apiDownload("/api/admin/users.csv?limit=1", admin.token, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  }
  const cookie = await staffSignedIn(servers.main, admin);
  for (let index = 0; index <= MAX_CONCURRENT_EXPORTS; index++) {
    expect((await pageDownload("/admin/downloads/users.csv/?limit=1", cookie, "same-origin", "HEAD")).status).toBe(200);
  }
  const api = await apiDownload("/api/admin/users.csv?limit=1", admin.token);
  expect(api.status).toBe(200);
  expect(await api.text()).toMatch(/^sub,email,/);
  const page = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  await page.arrayBuffer();
  // A HEAD started no export: only the two GETs are in the audit log.
  expect(await exportsRecordedFor(admin, admin.token)).toBe(2);
});

test("requests whose client hangs up at once never keep an export slot", async () => {
  const admin = await adminWithToken("abort");
  const cookie = await staffSignedIn(servers.main, admin);
  for (let index = 0; index < MAX_CONCURRENT_EXPORTS * 2; index++) {
    await abortedRequest("/api/admin/users.csv?all=1", { Authorization: `Bearer ${admin.token}` });
    await abortedRequest("/admin/downloads/users.csv/?all=1", { Cookie: cookie, "Sec-Fetch-Site": "same-origin" });
  }
  // Each slot is free again once the server has seen its request's hang-up: a download then goes through (a slot
  // kept for good would refuse every one).
  await expect
    .poll(async () => {
      const api = await apiDownload("/api/admin/users.csv?limit=1", admin.token);
      await api.arrayBuffer();
      return api.status;
    })
    .toBe(200);
  const page = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie);
  expect(page.status).toBe(200);
  await page.arrayBuffer();
});

test("a download link followed from another site, or from outside the browser, starts no export", async () => {
  const admin = await adminWithToken("cross-site");
  const cookie = await staffSignedIn(servers.main, admin);
  // "none": typed or bookmarked, or a link in a mail opened from another application.
  for (const site of ["cross-site", "same-site", "none"]) {
    const refused = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie, site);
    expect(refused.status, site).toBe(302);
    expect(refused.headers.get("location"), site).toBe("/admin/downloads/");
  }
  expect(await exportsRecordedFor(admin, admin.token)).toBe(0);
  // The downloads page's own form (same-origin), and a client that is no browser (no Sec-Fetch-Site at all).
  const own = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie);
  expect(own.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  await own.arrayBuffer();
  const script = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie, undefined);
  expect(script.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  await script.arrayBuffer();
  expect(await exportsRecordedFor(admin, admin.token)).toBe(2);
});

test("page downloads count against the staff rate limit", async () => {
  const admin = await adminWithToken("rate-limit");
  const cookie = await staffSignedIn(servers.main, admin);
  for (let index = 0; index < STAFF_LIMIT; index++) {
    const download = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie);
    expect(download.status).toBe(200);
    await download.arrayBuffer();
  }
  const refused = await pageDownload("/admin/downloads/users.csv/?limit=1", cookie);
  expect(refused.status).toBe(302);
  expect(new URL(refused.headers.get("location")!, servers.main.origin).searchParams.get("limited")).toBe("1");
  // The API's downloads count against the same limit.
  expect((await apiDownload("/api/admin/users.csv?limit=1", admin.token)).status).toBe(429);
  expect(await exportsRecordedFor(admin, admin.token)).toBe(STAFF_LIMIT);
});
