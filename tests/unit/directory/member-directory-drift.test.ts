import { expect, test } from "vitest";
import {
  type DirectoryEntry,
  SIGNED_UP_AT_TOLERANCE_MS,
  changedIdentityFields,
} from "~/domain/directory/member-directory.server";

const SIGNED_UP = new Date("2026-01-01T00:00:00Z");

const row: DirectoryEntry = {
  sub: "3f2b1c4d-0000-4000-8000-000000000001",
  username: "3f2b1c4d-0000-4000-8000-000000000001",
  email: "member@example.jp",
  emailVerified: true,
  cognitoStatus: "CONFIRMED",
  enabled: true,
  signedUpAt: SIGNED_UP,
  cognitoUpdatedAt: SIGNED_UP,
  locale: "ja",
  familyName: "山田",
  givenName: "太郎",
  groups: ["admin", "editors"],
  referrerService: null,
  cancelledAt: null,
  legacyMigratedAt: null,
  syncedAt: SIGNED_UP,
  seenInCognitoAt: SIGNED_UP,
  missingFromCognitoAt: null,
  emailKey: "member@example.jp",
  nameKey: "山田太郎",
  givenNameKey: "太郎山田",
  memberStatus: "active",
};

test("the app's own sign-up time and Cognito's creation date a moment apart are the same sign-up", () => {
  const later = new Date(SIGNED_UP.getTime() + SIGNED_UP_AT_TOLERANCE_MS);
  expect(changedIdentityFields(row, { ...row, signedUpAt: later, cognitoUpdatedAt: later })).toEqual([]);
  const muchLater = new Date(later.getTime() + 1);
  expect(changedIdentityFields(row, { ...row, signedUpAt: muchLater })).toEqual(["signedUpAt"]);
});

test("groups compare as sets, and every changed identity field is named", () => {
  expect(changedIdentityFields(row, { ...row, groups: ["editors", "admin"] })).toEqual([]);
  expect(
    changedIdentityFields(row, { ...row, groups: ["admin"], email: "new@example.jp", enabled: false, locale: null }),
  ).toEqual(["email", "enabled", "locale", "groups"]);
});

test("a row Cognito had lost and has again counts as changed", () => {
  expect(changedIdentityFields({ ...row, missingFromCognitoAt: SIGNED_UP }, row)).toEqual(["missingFromCognitoAt"]);
});
