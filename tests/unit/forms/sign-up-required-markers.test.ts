import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { expect, test } from "vitest";
import { countryChoices } from "~/components/form/country-choices";
import { prefectureChoices } from "~/components/form/prefecture-choices";
import { AccountInfoFormSchema, SignUpSchema } from "~/domain/forms/sign-up-schemas";
import { translatorFor } from "~/i18n/translator.server";
import SignUpPage from "~/routes/default/auth-sign-up";
import { type PageUnderTest, renderPage } from "../../support/page-render";

/**
 * Sign-up marks as required exactly what it refuses to go on without: the names of the fields an empty post is refused
 * for are the names of the fields whose label (or group's legend) carries the "required" badge. The prefecture and
 * the region are required by the country chosen: the server render shows both, each saying whom it is for, and
 * marks neither; with JavaScript the one the country calls for is on the page, marked.
 */

const english = translatorFor("en");
const REQUIRED_BADGE = '<span class="form-field__required">Required</span>';
const BY_COUNTRY = new Set(["prefecture", "region"]);

/** The names of the controls whose label, or whose group's legend, carries the badge. */
function markedFields(html: string): string[] {
  const labelled = [
    ...html.matchAll(/<label class="form-field__label" for="([^"]+)">((?:(?!<\/label>)[\s\S])*)<\/label>/g),
  ]
    .filter(([, , label]) => label!.includes(REQUIRED_BADGE))
    .map(([, id]) =>
      new RegExp(
        `<(?:input|select|textarea)[^>]*\\bid="${id}"[^>]*\\bname="([^"]+)"|<(?:input|select|textarea)[^>]*\\bname="([^"]+)"[^>]*\\bid="${id}"`,
      ).exec(html),
    )
    .map((match) => match?.[1] ?? match?.[2] ?? "?");
  const grouped = [
    ...html.matchAll(/<fieldset[^>]*>\s*<legend>((?:(?!<\/legend>)[\s\S])*)<\/legend>([\s\S]*?)<\/fieldset>/g),
  ]
    .filter(([, legend]) => legend!.includes(REQUIRED_BADGE))
    .flatMap(([, , body]) => [
      ...new Set([...body!.matchAll(/<input[^>]*\bname="([^"]+)"/g)].map(([, name]) => name!)),
    ]);
  return [...labelled, ...grouped].sort();
}

/** The fields an empty post of the schema is refused for. */
function refusedFields(schema: Parameters<typeof parseWithZod>[1]["schema"]) {
  const submission = parseWithZod(new FormData(), { schema });
  expect(submission.status).toBe("error");
  return Object.keys(submission.status === "error" ? (submission.error ?? {}) : {}).sort();
}

test("sign-up's first step marks the address, the password and the agreements, which it requires", () => {
  const page: PageUnderTest = {
    name: "sign-up, credentials",
    component: SignUpPage,
    loaderData: { step: "credentials", constraint: getZodConstraint(SignUpSchema) },
  };
  expect(markedFields(renderPage(page, "en"))).toEqual(refusedFields(SignUpSchema));
});

test("sign-up's account step marks what it requires: the questionnaire's Q2 and Q3, not Q1", () => {
  const page: PageUnderTest = {
    name: "sign-up, account",
    component: SignUpPage,
    loaderData: {
      step: "account",
      countries: countryChoices("en", "Other"),
      prefectures: prefectureChoices((key) => english(`prefectures:${key}`)),
      constraint: getZodConstraint(AccountInfoFormSchema),
    },
  };
  const marked = markedFields(renderPage(page, "en"));
  expect(marked).toEqual(expect.arrayContaining(["q2", "q3"]));
  expect(marked).not.toContain("q1");
  expect(refusedFields(AccountInfoFormSchema).filter((name) => !BY_COUNTRY.has(name))).toEqual(marked);
});
