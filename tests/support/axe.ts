import AxeBuilder from "@axe-core/playwright";
import { type Page, expect } from "@playwright/test";

/**
 * axe-core on the page as it stands: no serious or critical violation, each named by rule and element. Every rule
 * runs; only the violations are gathered element by element (axe's resultTypes), as nothing here reads the rest.
 */
export async function expectNoSeriousViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page }).options({ resultTypes: ["violations"] }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  expect(serious, `axe on ${label}`).toEqual([]);
}
