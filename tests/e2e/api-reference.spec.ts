import { readFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { API_ENDPOINTS } from "../../app/api/contract";
import { API_ERROR_CODES, API_ERROR_STATUS } from "../../app/api/endpoint";

/** The API reference lists what the contract and the OpenAPI document say, in the page's language. */

type ApiTexts = { errors: Record<string, string>; reference: { title: string } };

function apiTexts(locale: "ja" | "en"): ApiTexts {
  return JSON.parse(readFileSync(path.resolve("locales", locale, "api.json"), "utf8")) as ApiTexts;
}

/** An endpoint's section, found by its heading's id (the operationId). */
function endpointSection(page: Page, operationId: string) {
  return page.getByTestId("api-endpoint").filter({ has: page.locator(`h3[id="${operationId}"]`) });
}

const PAGES = [
  { locale: "ja", url: "/docs/api/" },
  { locale: "en", url: "/en/docs/api/" },
] as const;

for (const { locale, url } of PAGES) {
  test(`${url} lists every endpoint of the contract`, async ({ page }) => {
    const texts = apiTexts(locale);
    await page.goto(url);
    await expect(page.locator("script")).toHaveCount(0);
    await expect(page).toHaveTitle(new RegExp(texts.reference.title));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(texts.reference.title);

    const headings = page.getByRole("heading", { level: 3 });
    await expect(headings).toHaveCount(API_ENDPOINTS.length);
    for (const endpoint of API_ENDPOINTS) {
      const heading = page.locator(`h3[id="${endpoint.operationId}"]`);
      await expect(heading).toBeVisible();
      await expect(heading).toHaveText(`${endpoint.method.toUpperCase()} ${endpoint.path}`);
    }
  });

  test(`${url} shows every error code with its status and ${locale} message`, async ({ page }) => {
    const texts = apiTexts(locale);
    await page.goto(url);
    const rows = page.getByRole("table").locator("tbody tr");
    await expect(rows).toHaveCount(API_ERROR_CODES.length);
    for (const code of API_ERROR_CODES) {
      const row = rows.filter({ has: page.getByRole("rowheader", { name: code, exact: true }) });
      await expect(row.getByRole("cell")).toHaveText([String(API_ERROR_STATUS[code]), texts.errors[code]!]);
    }

    // Each endpoint lists its own codes with the same message.
    const devices = endpointSection(page, "registerUserDevice");
    await expect(devices.getByRole("listitem").filter({ hasText: "device_limit_exceeded" })).toHaveText(
      `409 device_limit_exceeded ${texts.errors.device_limit_exceeded}`,
    );
  });

  test(`${url}: each endpoint's error statuses are the ones its OpenAPI operation documents`, async ({
    page,
    request,
  }) => {
    await page.goto(url);
    const document = (await (await request.get("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const endpoint of API_ENDPOINTS) {
      const documented = Object.keys(document.paths[endpoint.path]![endpoint.method]!.responses)
        .filter((status) => Number(status) >= 400)
        .sort();
      const section = endpointSection(page, endpoint.operationId);
      const shown = await section.locator(".api-errors__status").allTextContents();
      expect([...new Set(shown)].sort(), endpoint.operationId).toEqual(documented);
      for (const code of endpoint.errors) {
        await expect(section.locator(".api-errors").getByText(code, { exact: true })).toBeVisible();
      }
    }
  });

  test(`${url} links to the OpenAPI document`, async ({ page, request }) => {
    await page.goto(url);
    const link = page.getByRole("link", { name: /OpenAPI/ });
    const href = await link.getAttribute("href");
    expect(href).toBe("/api/openapi.json");
    const response = await request.get(href!);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toContain("application/json");
    expect((await response.json()).openapi).toBe("3.1.0");
  });

  test(`${url} fits a 375px phone without sideways scrolling`, async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(url);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    // The error table fits too, so its scroll box never has to scroll.
    const table = page.locator(".table-scroll");
    expect(await table.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0);
  });
}

test("the request body fields show type, presence and allowed values", async ({ page }) => {
  await page.goto("/en/docs/api/");
  const language = endpointSection(page, "registerUser")
    .locator(".api-fields__row")
    .filter({ has: page.getByText("preferredLanguage", { exact: true }) });
  await expect(language).toContainText("string");
  await expect(language).toContainText("required");
  await expect(language).toContainText('Allowed values: "ja", "en"');

  const listing = endpointSection(page, "listUserDevices");
  await expect(listing).toContainText("No body");
  await expect(listing).toContainText("On success: HTTP 200");
  await expect(listing.locator(".api-fields dt")).toHaveText(["devices", "deviceLimit", "overLimit"]);
});
