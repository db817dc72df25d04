import { expect, test } from "vitest";
import { ErrorEnvelopeSchema } from "~/api/contract";
import { PAGE_BODY_LIMIT_BYTES } from "~/server/page-checks";
import { bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { createStaffAdmin } from "../../support/admin-members";
import { type RawOutcome, sendRawBytes } from "../../support/raw-http";
import { useTestServers } from "../../support/session-servers";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";
import { signedIn, staffSignedIn } from "../../support/session-http";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";

/**
 * Bodies larger than the ordinary limits (64 kB for pages, 32 kB for the API) are taken only from staff, who alone
 * upload files (docs/security.md, "Staff downloads and uploads"): anyone else is answered once the ordinary limit is
 * passed, without the rest of the body being waited for, read or parsed.
 */

const servers = useTestServers({ main: {} });

/** What the client announces: far over the ordinary limits, under the CSV import's file cap. */
const DECLARED_BYTES = 1024 * 1024;
/** What it sends of it before waiting for the answer: past the ordinary page limit. */
const SENT_BYTES = PAGE_BODY_LIMIT_BYTES + 16 * 1024;
/** An answer that comes only once the whole body is in would take the server's request timeout (30 s). */
const PROMPT_ANSWER_MS = 5_000;
const BOUNDARY = "----large-body-test";

/** A request announcing DECLARED_BYTES, of which only SENT_BYTES are sent: the answer must come before the rest. */
function partialUpload(path: string, headers: Record<string, string>): Promise<RawOutcome> {
  const origin = servers.main.origin;
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${new URL(origin).host}`,
    `Content-Length: ${DECLARED_BYTES}`,
    "Connection: close",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  const start = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="members.csv"\r\nContent-Type: text/csv\r\n\r\n`;
  const body = Buffer.concat([Buffer.from(start), Buffer.alloc(SENT_BYTES - start.length, "a")]);
  return sendRawBytes(
    Number(new URL(origin).port),
    Buffer.concat([Buffer.from(`${head}\r\n\r\n`), body]),
    PROMPT_ANSWER_MS,
  );
}

const pageUpload = (cookie: string) =>
  partialUpload("/admin/csv-import/", {
    "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
    Origin: servers.main.origin,
    "Sec-Fetch-Site": "same-origin",
    ...(cookie ? { Cookie: cookie } : {}),
  });

const apiUpload = (token: string) =>
  partialUpload("/api/admin/csv-import/user-create", {
    "Content-Type": "text/csv",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  });

function statusOf(outcome: RawOutcome): number | string {
  return outcome.kind === "response" ? outcome.response.status : outcome.error;
}

test("a large page post from a visitor, a member who is not staff or an admin's member session alone is refused at the ordinary limit", async () => {
  expect(statusOf(await pageUpload(""))).toBe(413);
  const member = await createTestMember(servers.main.standInPort, "large-body-member");
  const cookie = await signedIn(servers.main, { email: member.email, password: TEST_PASSWORD });
  expect(statusOf(await pageUpload(cookie))).toBe(413);
  // Staff uploads need the staff session (app/middleware/large-body-gate.server.ts), not the member one.
  const admin = await createStaffAdmin(servers.main.standInPort, "large-body-member-session");
  expect(statusOf(await pageUpload(await signedIn(servers.main, admin)))).toBe(413);
});

test("a large API body without a staff token is refused at the ordinary limit, with the envelope", async () => {
  const anonymous = await apiUpload("");
  expect(statusOf(anonymous)).toBe(401);
  if (anonymous.kind === "response") {
    expect(ErrorEnvelopeSchema.parse(JSON.parse(anonymous.response.body.toString())).error.code).toBe("unauthorized");
  }
  const member = await createTestMember(servers.main.standInPort, "large-body-api-member");
  const sdk = await connectToStandIn(servers.main.standInPort);
  try {
    const { accessToken } = await bearerTokensFor(sdk, member.email, TEST_PASSWORD);
    expect(statusOf(await apiUpload(accessToken))).toBe(403);
  } finally {
    sdk.destroy();
  }
});

test("staff may send a body over the ordinary limits, to the page and to the API", async () => {
  const admin = await createApiStaff(servers.main.process, "large-body");
  const cookie = await staffSignedIn(servers.main, admin);
  const sdk = await connectToStandIn(servers.main.standInPort);
  const { accessToken } = await staffTokensFor(sdk, admin).finally(() => sdk.destroy());
  const rows = Array.from({ length: 2000 }, (_, index) => `member${index}@example.jp,山田,太郎`).join("\n");
  const csv = `email,family_name,given_name\n${rows}\n`;
  expect(Buffer.byteLength(csv)).toBeGreaterThan(PAGE_BODY_LIMIT_BYTES);
  const form = new FormData();
  form.set("file", new File([csv], "members.csv", { type: "text/csv" }));
  const page = await fetch(`${servers.main.origin}/admin/csv-import/`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: servers.main.origin, "Sec-Fetch-Site": "same-origin" },
    body: form,
  });
  expect(page.status).not.toBe(413);
  expect(page.status).toBeLessThan(500);
  const api = await fetch(`${servers.main.origin}/api/admin/csv-import/user-create?dryRun=true`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "text/csv" },
    body: csv,
  });
  expect([200, 422]).toContain(api.status);
});
