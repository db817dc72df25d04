import { eq } from "drizzle-orm";
import { expect, test } from "vitest";
import { memberPasskeys, memberProfiles, recoveryCodes, staffAuditEvents, twoStepVerifications } from "~db/schema";
import { formatDateTime } from "~/components/admin/formats";
import type { SignedInStaff } from "~/domain/sessions/staff-sessions.server";
import { MemberExportParams } from "~/domain/staff/export-params.server";
import { exportMembers } from "~/domain/staff/member-export.server";
import {
  changeMemberEmail,
  disableMember,
  enableMember,
  endMemberSessions,
  refreshMember,
} from "~/domain/staff/staff-actions.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";
import { staffContext, staffStandingContext } from "~/router-context.server";
import * as auditLogPage from "~/routes/staff/admin-audit-log";
import * as memberPage from "~/routes/staff/admin-user";
import { pathFor } from "~/routing/route-table";
import { keysOf, rawKeys, rawTextsIn, textsOfPage } from "../../support/page-words";
import { routeCalls } from "../../support/route-calls";
import { signedInMember } from "../../support/signed-in-members";
import { useTestServices } from "../../support/test-services";

// The staff's member page and audit log as staff read them: rendered from their loaders' data over real services
// (PGlite or PostgreSQL, the Cognito stand-in over HTTP), after real staff actions, and scanned for the code's own
// field names and choices.
const ORIGIN = "http://localhost:3996";
const app = useTestServices({ label: "member-pages-in-words", origin: ORIGIN });
const calls = routeCalls(ORIGIN, () => app.services);

/** A staff member's request, as the staff layout's middleware leaves it (staff-sessions tests sign in for real). */
async function staffRequest(path: string, staff: SignedInStaff) {
  const request = calls.get(path);
  const context = await calls.context(request, null);
  context.set(staffContext, staff);
  context.set(staffStandingContext, "staff");
  return { request, context };
}

test("the member page and the audit log say everything in words: profile, answers, states, second factors and changes, no field name, code or null", async () => {
  const member = await signedInMember(app.services, "detail-words");
  const db = app.db;
  await db.insert(memberProfiles).values({
    sub: member.sub,
    familyName: "山田",
    givenName: "花子",
    birthYear: 1980,
    country: "JP",
    prefecture: "東京都",
    occupation: "architect",
    preferredLanguage: "en",
    referrerService: "compe",
    questionnaire: { q1: "friend", q2: ["price", "other"], q2Other: "作品の検索", q3: ["print"], q3Other: null },
  });
  const madeAt = new Date("2026-11-01T00:00:00Z");
  await db.insert(twoStepVerifications).values({ sub: member.sub, username: member.sub, enabledAt: madeAt });
  await db.insert(recoveryCodes).values({ sub: member.sub, codeHash: crypto.randomUUID(), createdAt: madeAt });
  await db.insert(memberPasskeys).values({
    credentialId: `credential-${crypto.randomUUID()}`,
    sub: member.sub,
    name: "仕事用のMac",
    madeOnDevice: "macOS 15",
    madeOnBrowser: "Safari 18",
    createdAt: madeAt,
  });
  const staff: SignedInStaff = {
    sub: crypto.randomUUID(),
    email: `detail-words-staff-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    groups: [app.services.config.adminGroup],
    sessionId: crypto.randomUUID(),
    accessToken: "not-read-by-these-loaders",
    passwordVerifiedAt: new Date(),
  };
  const actor = { ...staff, requestId: "member-pages-in-words" };
  await refreshMember(app.services, actor, member.sub);
  await changeMemberEmail(
    app.services,
    actor,
    member.sub,
    `detail-words-new-${member.sub}@example.jp`,
    i18nextOutsideRequests,
  );
  await endMemberSessions(app.services, actor, member.sub);
  await disableMember(app.services, actor, member.sub);
  await enableMember(app.services, actor, member.sub);
  // A download, recorded as its settings once its file is read.
  const download = await exportMembers(app.services, {
    actor,
    requestId: "member-pages-in-words",
    query: MemberExportParams.parse({}),
  });
  await new Response(download.body).arrayBuffer();

  // The names and codes to scan for: the code's own tables, and every field the staff actions recorded.
  const events = await db.select().from(staffAuditEvents).where(eq(staffAuditEvents.actorSub, staff.sub));
  expect(events.map((event) => event.action).toSorted()).toEqual(
    ["data.export", "user.disable", "user.email-change", "user.enable", "user.refresh", "user.sessions-end"].toSorted(),
  );
  const keys = rawKeys(events.flatMap((event) => [...keysOf(event.before), ...keysOf(event.after)]));
  for (const key of ["q2Other", "architect", "JP", "CONFIRMED", "liveSessions", "export", "encoding", "utf-8"]) {
    expect(keys.has(key)).toBe(true);
  }

  for (const [locale, words] of [
    [
      "ja",
      [
        "建築設計",
        "日本",
        "東京都",
        "知人",
        "価格、その他（作品の検索）",
        "確認済み",
        "コンペ",
        "仕事用のMac",
        "1件登録済み",
      ],
    ],
    [
      "en",
      [
        "Architectural design",
        "Japan",
        "Tokyo",
        "Confirmed",
        "Price, Other (作品の検索)",
        "仕事用のMac",
        "1 registered",
      ],
    ],
  ] as const) {
    const detail = await staffRequest(pathFor("admin-user", locale, { sub: member.sub }), staff);
    const detailData = await memberPage.loader(calls.args(detail.request, detail.context, { sub: member.sub }));
    const detailTexts = textsOfPage(memberPage.default, detailData, locale);
    expect(rawTextsIn(detailTexts, keys)).toEqual([]);
    expect(detailTexts).toEqual(expect.arrayContaining([...words]));
    // 2-step verification: on since its time, in Japan time.
    expect(detailTexts.join("\n")).toContain(formatDateTime(madeAt, locale));

    const log = await staffRequest(`${pathFor("admin-audit-log", locale)}?actor=${staff.sub}`, staff);
    const logData = await auditLogPage.loader(calls.args(log.request, log.context));
    const logTexts = textsOfPage(auditLogPage.default, logData.data, locale);
    expect(rawTextsIn(logTexts, keys)).toEqual([]);
  }
});
