import { expect, test } from "vitest";
import { auditFieldLabels, auditTranslator, describeAuditChanges } from "~/components/admin/audit-event-rows.server";
import { MemberExportParams } from "~/domain/staff/export-params.server";
import { i18nextOutsideRequests } from "~/i18n/translator.server";

const t = (locale: string) => auditTranslator(i18nextOutsideRequests, locale);

test("a download reads as its settings in words, with no before", () => {
  const settings = { export: "users", ...MemberExportParams.parse({ header: "0", encoding: "shift_jis" }) };
  expect(describeAuditChanges(null, settings, t("ja"), "ja")).toEqual([
    { name: "ダウンロード", before: null, after: "会員一覧（users.csv）" },
    { name: "並び順", before: null, after: "登録日が新しい順" },
    { name: "1ページの行数", before: null, after: "10,000" },
    { name: "ページ（0から）", before: null, after: "0" },
    { name: "見出し行", before: null, after: "いいえ" },
    { name: "文字コード", before: null, after: "Shift_JIS（CP932）" },
  ]);
});

test("a change on a member reads field by field, before and after in words, unchanged fields left out", () => {
  const before = { enabled: true, liveSessions: 2 };
  const after = { enabled: false, liveSessions: 0, endedSessions: 2, globalSignOut: true };
  expect(describeAuditChanges(before, after, t("en"), "en")).toEqual([
    { name: "Enabled", before: "Yes", after: "No" },
    { name: "Logged-in sessions", before: "2", after: "0" },
    { name: "Sessions ended", before: null, after: "2" },
    { name: "Logged out on every device", before: null, after: "Yes" },
  ]);
  expect(describeAuditChanges({ enabled: true }, { enabled: true }, t("en"), "en")).toEqual([]);
});

test("a refresh's toast names the changed fields by their labels", () => {
  expect(auditFieldLabels(["givenName", "cognitoStatus"], i18nextOutsideRequests, "ja")).toBe("名、Cognito の状態");
  expect(auditFieldLabels(["givenName", "cognitoStatus"], i18nextOutsideRequests, "en")).toBe(
    "Given name, Cognito status",
  );
});
