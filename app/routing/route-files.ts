import type { RouteName, SectionId } from "./route-table";

/**
 * The module of each layout and page in route-table.ts, for the build (app/routes.ts) and the tests. Kept out of
 * route-table.ts, which every page loads in the browser. `satisfies` makes a page without a module, or a module
 * for no page, a compile error.
 */
export const LAYOUT_FILES = {
  default: "layouts/default-layout.tsx",
  member: "layouts/member-layout.tsx",
  staff: "layouts/admin-layout.tsx",
  "dev-tools": "layouts/dev-tools-layout.tsx",
} as const satisfies Record<SectionId, string>;

export const PAGE_FILES = {
  index: "routes/home.tsx",
  "docs-terms-of-use": "routes/docs/terms-of-use.tsx",
  "docs-terms-of-use-shinkenchiku-id": "routes/docs/terms-of-use-id.tsx",
  "docs-terms-of-use-shinkenchiku-online": "routes/docs/terms-of-use-online.tsx",
  "docs-privacy-policy": "routes/docs/privacy-policy.tsx",
  auth: "routes/auth/index.tsx",
  "auth-sign-in": "routes/auth/sign-in.tsx",
  "auth-new-password": "routes/auth/new-password.tsx",
  "auth-sign-out": "routes/auth/sign-out.tsx",
  "auth-forgot-password": "routes/auth/forgot-password.tsx",
  "auth-sign-up": "routes/auth/sign-up.tsx",
  "email-update": "routes/email-update.tsx",
  "docs-api": "routes/docs/api-reference.tsx",
  "not-found": "routes/not-found.tsx",
  "my-profile": "routes/my/profile.tsx",
  "my-profile-edit": "routes/my/profile-edit.tsx",
  "my-email-edit": "routes/my/email-edit.tsx",
  "my-password-edit": "routes/my/password-edit.tsx",
  "my-devices": "routes/my/devices.tsx",
  "my-withdrawal": "routes/my/withdrawal.tsx",
  admin: "routes/admin/overview.tsx",
  "admin-users": "routes/admin/open-member.tsx",
  "admin-user": "routes/admin/member.tsx",
  "admin-audit-log": "routes/admin/audit-log.tsx",
  "admin-downloads": "routes/admin/downloads.tsx",
  "admin-download": "routes/admin/downloads-file.ts",
  "admin-csv-import": "routes/admin/csv-import-upload.tsx",
  "admin-csv-import-template": "routes/admin/csv-import-template.ts",
  "admin-csv-import-job": "routes/admin/csv-import-progress.tsx",
  "admin-csv-import-failed-rows": "routes/admin/csv-import-failed-rows-download.ts",
  demo: "routes/dev/demo.tsx",
  "rebranding-debugs": "routes/dev/rebranding-debugs.tsx",
  "rebranding-debugs-page": "routes/dev/rebranding-debugs-page.tsx",
  "dev-mailbox": "routes/dev/mailbox.tsx",
} as const satisfies Record<RouteName, string>;
