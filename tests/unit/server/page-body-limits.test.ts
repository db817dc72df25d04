import { expect, test } from "vitest";
import { largerPageBodyLimits } from "~/composition-root.server";
import { CSV_IMPORT_MAX_FILE_BYTES } from "~/domain/csv-import/csv-import-file.server";
import { PAGE_BODY_LIMIT_BYTES, pageBodyLimitBytes } from "~/server/page-checks";

const LIMITS = largerPageBodyLimits();

test("the staff's CSV upload may post the import's file cap and a little multipart around it; other pages 64 KB", () => {
  for (const path of ["/admin/csv-import/", "/en/admin/csv-import/", "/admin/csv-import/_.data"]) {
    expect(pageBodyLimitBytes(path, LIMITS), path).toBeGreaterThan(CSV_IMPORT_MAX_FILE_BYTES);
    expect(pageBodyLimitBytes(path, LIMITS), path).toBeLessThanOrEqual(CSV_IMPORT_MAX_FILE_BYTES + 64 * 1024);
  }
  for (const path of [
    "/my/profile/edit/",
    "/admin/users/x/",
    "/admin/csv-import/00000000-0000-4000-8000-000000000000/",
  ]) {
    expect(pageBodyLimitBytes(path, LIMITS), path).toBe(PAGE_BODY_LIMIT_BYTES);
  }
});
