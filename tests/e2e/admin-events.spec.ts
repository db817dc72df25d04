import { expect, inOneProjectFor, test } from "./fixtures";
import { E2E_APP } from "../../playwright.config";
import { createApiStaff } from "../support/staff-api-access";
import { openStaffSessionInBrowser } from "../support/sign-in-form";

/*
 * The deliveries page on the e2e server's siblings (playwright.config.ts): Online hears only `member.deleted`, whose one
 * event the server's start recorded (tests/support/seed-e2e-events.ts); Compe was disabled by a 410 before it; Data
 * and Shop are the event capture's, as the preview server's embedded stack sets them up.
 */

test("staff read each sibling's settings and state in words, and redeliver one event with a plain form post", async ({
  page,
}) => {
  // The forms are plain posts and the page has no script of its own: read in English, without JavaScript.
  inOneProjectFor("en");
  const admin = await createApiStaff(E2E_APP, "events");
  await openStaffSessionInBrowser(page, admin, { path: "/en/admin/sign-in/?to=admin-events", locale: "en" });
  await expect(page.getByRole("heading", { level: 2, name: "Deliveries to the sibling services" })).toBeVisible();
  await expect(
    page.getByRole("navigation", { name: "Administration menu" }).getByRole("link", { name: "Deliveries" }),
  ).toBeVisible();

  const compe = page.getByTestId("events-compe");
  await expect(compe.getByTestId("endpoint-state")).toHaveText(
    "Disabled since Dec 1, 2026, 10:00:00 AM: it answered 410",
  );
  // A disabled endpoint offers to enable it from a time, and no redelivery until then.
  await expect(compe.getByRole("form", { name: "Enable deliveries again" })).toBeVisible();
  await expect(compe.getByRole("button", { name: /^Redeliver/ })).toHaveCount(0);
  // Shop hears every event at the preview server's event capture, which takes them all.
  await expect(page.getByTestId("events-shop").getByTestId("endpoint-state")).toHaveText("Healthy");

  const online = page.getByTestId("events-online");
  await expect(online).toContainText("http://127.0.0.1:9/online/account-events");
  await expect(online).not.toContainText("whsec_");
  // A time to come is refused on its field, in words, and changes nothing.
  const since = online.getByRole("form", { name: "Redeliver every event since a time" });
  await since.getByLabel("Events recorded at or after (Japan time)").fill("2099-01-01T10:00");
  await since.getByRole("button", { name: "Redeliver" }).click();
  await expect(page.getByTestId("events-online").getByText("The time cannot be in the future.")).toBeVisible();

  // Online's newest delivery, whichever it is: the other specs' log-outs queue logout tokens for Online (the event
  // capture's logout URI) beside the seeded member.deleted, so which is newest depends on them. What a reset row holds
  // is the database test's (endpoint-admin.db.test.ts); here, the plain post and what staff are told.
  const row = page
    .getByTestId("events-online")
    .getByTestId("deliveries")
    .getByRole("row")
    .filter({ has: page.locator("code") })
    .first();
  const eventId = (await row.locator("code").textContent())!;
  await row.getByRole("button", { name: `Redeliver event ${eventId} to Online` }).click();
  await expect(page.getByTestId("toast")).toContainText("The event is queued for redelivery.");

  // A service's own view: its last 50 deliveries, and the way back to the four.
  await page.goto("/en/admin/events/?service=online");
  await expect(page.getByTestId("events-online").getByRole("row").filter({ hasText: eventId })).toHaveCount(1);
  await expect(page.getByTestId("events-compe")).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Back to every service" })).toBeVisible();

  await page.goto(`/en/admin/audit-log/?actor=${encodeURIComponent(admin.email)}`);
  const entry = page.getByTestId("audit-events").getByRole("row").filter({ hasText: "Event redelivered" });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText("Online");
  await expect(entry).toContainText(eventId);
});
