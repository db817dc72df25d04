import AxeBuilder from "@axe-core/playwright";
import { type Page, expect } from "@playwright/test";

/** axe-core on the page as it stands: no serious or critical violation, each named by rule and element. */
export async function expectNoSeriousViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  expect(serious, `axe on ${label}`).toEqual([]);
}
