import { type ReactNode, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { RouterProvider, createMemoryRouter } from "react-router";
import { afterEach, expect, test, vi } from "vitest";
import { useMessageTranslator } from "~/components/use-message-translator";
import { MISSING_TEXT_LOG, useTranslation } from "~/i18n/use-translation";

/** The page's markup when its loader sent `translations`, and the lines it logged as console errors. */
function render(Page: () => ReactNode, translations: object): { html: string; errors: string[] } {
  const errors: string[] = [];
  vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
  const router = createMemoryRouter([{ id: "page", path: "/", Component: Page }], {
    hydrationData: { loaderData: { page: { locale: "en", translations } } },
  });
  return { html: renderToStaticMarkup(createElement(RouterProvider, { router })), errors };
}

afterEach(() => {
  vi.restoreAllMocks();
});

test("a key the page's loader forgot to send shows no raw key and is logged, which the tests fail on", () => {
  function Page() {
    const { t } = useTranslation("admin");
    return createElement("p", null, `${t("heading")}|${t("list.title")}`);
  }
  const { html, errors } = render(Page, { admin: JSON.stringify({ heading: "Staff" }) });
  expect(html).toBe("<p>Staff|</p>");
  expect(errors).toEqual([expect.stringContaining(`${MISSING_TEXT_LOG} admin:list.title`)]);
});

test("a key made from data shows the caller's defaultValue when the page has no text for it, as in i18next", () => {
  function Page() {
    const { t } = useTranslation("account");
    return createElement("p", null, t("dataCopy.fields.favouriteColour" as never, { defaultValue: "favouriteColour" }));
  }
  const { html, errors } = render(Page, { account: { dataCopy: { fields: { email: "E-mail" } } } });
  expect(html).toBe("<p>favouriteColour</p>");
  expect(errors).toEqual([]);
});

test("a message that arrives as data is translated when the page sent its key and shown as it is otherwise", () => {
  function Page() {
    const message = useMessageTranslator();
    return createElement("p", null, `${message("validation.required")}|${message("Already translated.")}`);
  }
  const { html, errors } = render(Page, { forms: { validation: { required: "Required" } } });
  expect(html).toBe("<p>Required|Already translated.</p>");
  expect(errors).toEqual([]);
});
