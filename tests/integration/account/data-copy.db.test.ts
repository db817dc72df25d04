import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import {
  emailChangeTokens,
  invitationResends,
  legacyCredentials,
  memberPasskeys,
  memberProfiles,
  memberSessions,
  recoveryCodes,
  twoStepVerifications,
  withdrawalReasons,
} from "~db/schema";
import { requestEmailChange } from "~/domain/account/email-change.server";
import { hashDeviceKey } from "~/domain/security/security-record.server";
import { openRefreshToken } from "~/domain/sessions/refresh-tokens.server";
import { refreshMember } from "~/domain/staff/staff-actions.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import type { SignedInMember } from "~/middleware/member-session.server";
import * as dataDownload from "~/routes/member/my-data-download";
import * as dataPage from "~/routes/member/my-data";
import { formatDateTime } from "~/components/admin/formats";
import { collectDataCopy } from "~/domain/account/data-copy.server";
import { changeMemberEmail } from "~/domain/staff/staff-actions.server";
import { emailUpdateLinkFor } from "~/routing/email-update-link";
import { pathFor } from "~/routing/route-table";
import { routeCalls, settle } from "../../support/route-calls";
import { signInMember, signedInMember as newSignedInMember } from "../../support/signed-in-members";
import { keysOf, rawKeys, rawTextsIn, textsOfPage } from "../../support/page-words";
import { getRequestCounts, resetRequestCounts } from "../../support/stand-in-faults";
import { createTestMember } from "../../support/test-members";
import { useTestServices } from "../../support/test-services";

// The member's copy of their data, downloaded and shown through the route modules with real services: PGlite (or
// PostgreSQL), the Cognito stand-in over HTTP, the SMTP capture. Each member signs in with their password just
// before, so the password step is behind them (reauthentication.db.test.ts covers it).
const ORIGIN = "http://localhost:3995";
const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const DATA_COPY_LIMIT = 3;
const app = useTestServices({
  label: "data-copy",
  origin: ORIGIN,
  env: { RATE_LIMIT_DATA_COPY_PER_MEMBER: String(DATA_COPY_LIMIT) },
});
const calls = routeCalls(ORIGIN, () => app.services);

async function signedInMember(
  label: string,
  { directory = true } = {},
): Promise<SignedInMember & { refreshToken: string }> {
  const browser = { userAgent: CHROME, locale: "en" as const };
  const member = directory
    ? await newSignedInMember(app.services, label, browser)
    : await signInMember(app.services, (await createTestMember(app.standInPort, label)).email, browser);
  const [row] = await app.db.select().from(memberSessions).where(eq(memberSessions.id, member.sessionId));
  return { ...member, refreshToken: openRefreshToken(row!, app.services.config.sessionSecrets)! };
}

/** The data page as the member reads it: its texts, rendered from its loader's data. */
async function pageTexts(member: SignedInMember, locale: "ja" | "en"): Promise<string[]> {
  const request = calls.get(pathFor("my-data", locale));
  const page = await dataPage.loader(calls.args(request, await calls.context(request, member)));
  return textsOfPage(dataPage.default, page, locale);
}

async function download(member: SignedInMember): Promise<Response> {
  const request = calls.post(pathFor("my-data-download", "en"), {});
  return (await settle(dataDownload.action(calls.args(request, await calls.context(request, member))))) as Response;
}

type Copy = {
  schemaVersion: number;
  member: { sub: string; email: string };
  sections: {
    identity: Record<string, unknown>;
    profile: Record<string, unknown> | null;
    newsletter: { receives: boolean; language: string | null };
    sessions: Record<string, unknown>[];
    securityRecord: Record<string, unknown>[];
    emailChanges: Record<string, unknown>[];
    cancellation: Record<string, unknown>;
    legacyAccount: Record<string, unknown> | null;
    twoStepVerification: Record<string, unknown> | null;
    passkeys: Record<string, unknown>[];
    invitation: Record<string, unknown> | null;
    staffActions: Record<string, unknown>[];
  };
};

test("the download holds the member's address, sub, profile, sessions, e-mail changes, legacy account, second factors, invitation and staff actions, and no secret", async () => {
  const member = await signedInMember("copy");
  const db = app.db;
  await db.insert(memberProfiles).values({
    sub: member.sub,
    familyName: "山田",
    givenName: "太郎",
    birthYear: 1980,
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    organization: "設計事務所",
    preferredLanguage: "en",
    questionnaire: { q1: ["magazine"], q2: "weekly" },
  });
  const newEmail = `copy-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await requestEmailChange(
    { ...app.services, mailTexts: i18nextOutsideRequests, confirmationLink: emailUpdateLinkFor(ORIGIN) },
    { sub: member.sub, currentEmail: member.email, newEmail, locale: "en" },
  );
  const legacyHash = `$2b$10$${"x".repeat(53)}`;
  await db.insert(legacyCredentials).values({
    email: `legacy-${member.email}`,
    passwordHash: legacyHash,
    profile: { familyName: "山田" },
    migratedAt: new Date(),
    migratedSub: member.sub,
  });
  // Second factors and a resent invitation as their flows leave them (two-step-setup, passkeys and password-reset
  // tests make them through the pages).
  const madeAt = new Date("2026-11-01T00:00:00Z");
  const usedAt = new Date("2026-11-02T00:00:00Z");
  const codeHashes = [crypto.randomUUID(), crypto.randomUUID()];
  const credentialId = `credential-${crypto.randomUUID()}`;
  await db.insert(twoStepVerifications).values({ sub: member.sub, username: member.sub, enabledAt: madeAt });
  await db.insert(recoveryCodes).values([
    { sub: member.sub, codeHash: codeHashes[0]!, createdAt: madeAt, usedAt },
    { sub: member.sub, codeHash: codeHashes[1]!, createdAt: madeAt },
  ]);
  await db.insert(memberPasskeys).values({
    credentialId,
    sub: member.sub,
    name: "仕事用のMac",
    madeOnDevice: "macOS 15",
    madeOnBrowser: "Safari 18",
    createdAt: madeAt,
  });
  await db.insert(invitationResends).values({ sub: member.sub, resentAt: usedAt });
  const staff = { sub: crypto.randomUUID(), email: "staff-member@example.jp", requestId: "data-copy-staff" };
  await refreshMember(app.services, staff, member.sub);

  const response = await download(member);
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/json; charset=utf-8");
  expect(response.headers.get("Cache-Control")).toBe("no-store");
  expect(response.headers.get("Content-Disposition")).toMatch(/^attachment; filename="my-data-\d{8}-\d{4}\.json"/);
  const text = await response.text();
  const copy = JSON.parse(text) as Copy;

  expect(copy.schemaVersion).toBe(2);
  expect(copy.member).toEqual({ sub: member.sub, email: member.email });
  expect(copy.sections.identity).toMatchObject({ source: "directory", email: member.email, locale: "en" });
  expect(copy.sections.profile).toMatchObject({
    familyName: "山田",
    givenName: "太郎",
    birthYear: 1980,
    questionnaire: { q1: ["magazine"], q2: "weekly" },
  });
  expect(copy.sections.newsletter).toEqual({ receives: true, language: "en" });
  expect(copy.sections.sessions).toEqual([
    expect.objectContaining({ deviceName: expect.any(String), browser: expect.stringContaining("Chrome"), live: true }),
  ]);
  expect(copy.sections.emailChanges).toEqual([
    expect.objectContaining({ oldEmail: member.email, newEmail, confirmedAt: null }),
  ]);
  expect(copy.sections.cancellation).toEqual({ cancelledAt: null, identityDeletedAt: null, reasons: [] });
  expect(copy.sections.legacyAccount).toMatchObject({
    email: `legacy-${member.email}`,
    profile: { familyName: "山田" },
  });
  expect(copy.sections.twoStepVerification).toEqual({
    turnedOnAt: madeAt.toISOString(),
    recoveryCodesMadeAt: madeAt.toISOString(),
    recoveryCodesLeft: 1,
    recoveryCodesUsedAt: [usedAt.toISOString()],
  });
  expect(copy.sections.passkeys).toEqual([
    {
      name: "仕事用のMac",
      deviceName: "macOS 15",
      browser: "Safari 18",
      addedAt: madeAt.toISOString(),
      lastUsedAt: null,
    },
  ]);
  expect(copy.sections.invitation).toEqual({ resentAt: usedAt.toISOString() });
  expect(copy.sections.staffActions).toEqual([
    expect.objectContaining({
      staff: "staff-1",
      action: "user.refresh",
      occurredAt: expect.any(String),
    }),
  ]);
  // The security record: the sign-in so far (this download is recorded once the copy is made).
  expect(copy.sections.securityRecord).toEqual([
    expect.objectContaining({ kind: "sign-in", browser: expect.stringContaining("Chrome"), newBrowser: true }),
  ]);

  // No secret, under any name: tokens (plain and encrypted), their ids, the device key, hashes.
  const [session] = await db.select().from(memberSessions).where(eq(memberSessions.id, member.sessionId));
  const [link] = await db.select().from(emailChangeTokens).where(eq(emailChangeTokens.sub, member.sub));
  const secrets = [
    session!.refreshTokenEncrypted,
    member.refreshToken,
    member.accessToken,
    session!.originJti!,
    session!.deviceKey,
    hashDeviceKey(session!.deviceKey),
    session!.id,
    link!.tokenHash,
    legacyHash,
    ...codeHashes,
    credentialId,
  ];
  for (const secret of secrets) expect(text).not.toContain(secret);
  // Recovery codes appear as dates and a count only.
  const recoveryCodeFacts = new Set(["recoveryCodesMadeAt", "recoveryCodesLeft", "recoveryCodesUsedAt"]);
  expect(
    keysOf(copy).filter(
      (key) => /token|hash|secret|code|jti|deviceKey|credential|^password$/i.test(key) && !recoveryCodeFacts.has(key),
    ),
  ).toEqual([]);
});

test("staff actions name who as a pseudonym (staff-1, staff-2 in the order they first acted), never the staff member's address, in the file and on the page", async () => {
  const member = await signedInMember("staff-pseudonym");
  const first = { sub: crypto.randomUUID(), email: "first-staff@example.jp", requestId: "pseudonym-1" };
  const second = { sub: crypto.randomUUID(), email: "second-staff@example.jp", requestId: "pseudonym-2" };
  await refreshMember(app.services, first, member.sub);
  await refreshMember(app.services, second, member.sub);
  await refreshMember(app.services, first, member.sub);

  const text = await (await download(member)).text();
  const copy = JSON.parse(text) as Copy;
  expect(copy.schemaVersion).toBe(2);
  // Newest first, as the section lists them.
  expect(copy.sections.staffActions.map((action) => action.staff)).toEqual(["staff-1", "staff-2", "staff-1"]);
  for (const staff of [first, second]) {
    expect(text).not.toContain(staff.email);
    expect(text).not.toContain(staff.sub);
  }

  for (const [locale, name] of [
    ["ja", "スタッフ2"],
    ["en", "Staff member 2"],
  ] as const) {
    const texts = await pageTexts(member, locale);
    expect(texts).toContain(name);
    expect(texts.join("\n")).not.toContain(first.email);
  }
});

test("each member gets their own copy and only their own: the session decides whose, and nothing in the request can", async () => {
  const first = await signedInMember("first");
  const second = await signedInMember("second", { directory: false });
  // A member the directory has not seen: the download asks Cognito once, by the session's own address.
  await resetRequestCounts(app.stack.env.COGNITO_ENDPOINT!);
  const request = calls.post(`${pathFor("my-data-download", "en")}?sub=${first.sub}`, { sub: first.sub });
  const response = (await settle(
    dataDownload.action(calls.args(request, await calls.context(request, second), { sub: first.sub })),
  )) as Response;
  expect((await getRequestCounts(app.stack.env.COGNITO_ENDPOINT!)).byOperation).toEqual({ AdminGetUser: 1 });
  const text = await response.text();
  const copy = JSON.parse(text) as Copy;
  expect(copy.member).toEqual({ sub: second.sub, email: second.email });
  expect(copy.sections.identity).toMatchObject({ source: "identityProvider", email: second.email });
  expect(text).not.toContain(first.sub);
  expect(text).not.toContain(first.email);
});

test("the page shows the same copy in readable form and makes no Cognito call", async () => {
  const member = await signedInMember("page");
  await resetRequestCounts(app.stack.env.COGNITO_ENDPOINT!);
  for (const locale of ["ja", "en"] as const) {
    const request = calls.get(pathFor("my-data", locale));
    const page = await dataPage.loader(calls.args(request, await calls.context(request, member)));
    const texts = textsOfPage(dataPage.default, page, locale);
    expect(texts).toEqual(expect.arrayContaining([member.sub, member.email]));
    expect(page.sections.find((section) => section.name === "sessions")?.groups).toHaveLength(1);
    expect(page.downloadPath).toBe(pathFor("my-data-download", locale));
  }
  expect((await getRequestCounts(app.stack.env.COGNITO_ENDPOINT!)).total).toBe(0);
});

test("downloads are rate-limited per member; past the limit the page says so", async () => {
  const member = await signedInMember("limited");
  for (let attempt = 0; attempt < DATA_COPY_LIMIT; attempt++) expect((await download(member)).status).toBe(200);
  const refused = await download(member);
  expect(refused.status).toBe(302);
  expect(refused.headers.get("Location")).toBe(pathFor("my-data", "en"));
  expect(refused.headers.get("Content-Disposition")).toBeNull();
});

test("the page says everything in words, in the member's language: no field name, code, null or developer word", async () => {
  const member = await signedInMember("in-words");
  const db = app.db;
  await db.insert(memberProfiles).values({
    sub: member.sub,
    familyName: "山田",
    givenName: "太郎",
    birthYear: 1980,
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    organization: "設計事務所",
    preferredLanguage: "en",
    referrerService: "data",
    questionnaire: { q1: "magazine", q2: ["search", "other"], q2Other: "作品の検索", q3: ["web"], q3Other: null },
  });
  await db.insert(legacyCredentials).values({
    email: `legacy-${member.email}`,
    passwordHash: `$2b$10$${"y".repeat(53)}`,
    profile: { familyName: "山田", country: "JP", occupation: "student" },
    migratedSub: member.sub,
  });
  const madeAt = new Date("2026-11-01T00:00:00Z");
  await db.insert(twoStepVerifications).values({ sub: member.sub, username: member.sub, enabledAt: madeAt });
  await db.insert(recoveryCodes).values({ sub: member.sub, codeHash: crypto.randomUUID(), createdAt: madeAt });
  await db.insert(memberPasskeys).values({
    credentialId: `credential-${crypto.randomUUID()}`,
    sub: member.sub,
    madeOnDevice: "macOS 15",
    madeOnBrowser: "Safari 18",
    createdAt: madeAt,
  });
  await db.insert(withdrawalReasons).values({ sub: member.sub, reason: "price", detail: null, locale: "en" });
  const staff = { sub: crypto.randomUUID(), email: "in-words-staff@example.jp", requestId: "in-words" };
  await refreshMember(app.services, staff, member.sub);
  const newEmail = `in-words-new-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  await changeMemberEmail(app.services, staff, member.sub, newEmail, i18nextOutsideRequests);

  // The names and codes to scan for: the code's own tables, and every field name and staff pseudonym of this copy.
  const copy = await collectDataCopy({ db, sub: member.sub, email: member.email, identity: null }, new Date());
  const keys = rawKeys([...keysOf(copy), "staff-1"]);
  for (const key of ["generatedAt", "q1", "q2Other", "architect", "JP", "CONFIRMED", "user.refresh", "sign-in"]) {
    expect(keys.has(key)).toBe(true);
  }

  for (const [locale, words] of [
    [
      "ja",
      ["建築設計", "日本", "東京都", "雑誌", "検索のしやすさ、その他（作品の検索）", "学生", "スタッフ1", "料金が高い"],
    ],
    [
      "en",
      [
        "Architectural design",
        "Japan",
        "Tokyo",
        "The magazine",
        "Searchability, Other (作品の検索)",
        "Student",
        "Staff member 1",
        "The price is too high",
      ],
    ],
  ] as const) {
    const texts = await pageTexts(member, locale);
    expect(rawTextsIn(texts, keys, ["Cognito", "schema", "スキーマ"])).toEqual([]);
    expect(texts).toEqual(expect.arrayContaining([...words]));
    // Times in Japan time: midnight UTC reads 9:00.
    expect(texts).toContain(formatDateTime(madeAt, locale));
    expect(formatDateTime(madeAt, locale)).toMatch(/9:00:00/);
  }
});
