import type { Page } from "@playwright/test";

/**
 * The profile fields shared by sign-up's account step and the profile edit page, by form field name: `prefecture`
 * is Japan's list, `region` the free text for anywhere else.
 */
export interface ProfileFormValues {
  familyName?: string;
  givenName?: string;
  birthYear?: string;
  country?: string;
  prefecture?: string;
  region?: string;
  occupation?: string;
  organization?: string;
}

const SELECTS = new Set<keyof ProfileFormValues>(["country", "prefecture", "occupation"]);

/**
 * Fills the named profile fields (in this order, which is the form's) and leaves the others as they are. With
 * JavaScript, choosing the country first is what puts the prefecture's right control on the page.
 */
export async function fillProfileFields(page: Page, values: ProfileFormValues): Promise<void> {
  for (const [name, value] of Object.entries(values) as [keyof ProfileFormValues, string][]) {
    const field = page.locator(`[name="${name}"]`);
    await (SELECTS.has(name) ? field.selectOption(value) : field.fill(value));
  }
}
