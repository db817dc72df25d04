import { type ReactElement, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { RouterProvider, createMemoryRouter } from "react-router";
import { expect, test } from "vitest";
import type { z } from "zod";
import {
  CheckboxField,
  CheckboxGroupField,
  FormAlert,
  InputField,
  RadioGroupField,
  ReadOnlyEmailField,
  TextareaField,
} from "~/components/form/fields";
import { NewPasswordField } from "~/components/form/new-password-field";
import { useSchemaForm } from "~/components/form/use-schema-form";

const FORMS = {
  form: {
    required: "Required",
    newPasswordRules: "At least 8 characters.",
    errorSummary: { title: "There is a problem", fields: "Check the fields marked below ({{count}})" },
  },
  validation: { required: "Enter this.", agree: "Tick this." },
};

/** Renders a kit element the way a page does: inside a route whose loader data carries the "forms" texts. */
function render(element: ReactElement): string {
  const router = createMemoryRouter([{ id: "page", path: "/", Component: () => element }], {
    hydrationData: { loaderData: { page: { locale: "en", translations: { forms: FORMS } } } },
  });
  return renderToStaticMarkup(createElement(RouterProvider, { router }));
}

/** The attributes of the first `<tagName>` whose attributes contain `marker`, in any order. */
function attributesOf(html: string, tagName: string, marker: string): string[] {
  const tag = [...html.matchAll(new RegExp(`<${tagName}( [^>]*)/?>`, "g"))].find(([, attributes]) =>
    attributes?.includes(marker),
  );
  return (tag?.[1] ?? "").match(/[\w-]+(="[^"]*")?/g) ?? [];
}

test("an input is labelled, marked required, and described by its hint and then its errors", () => {
  const html = render(
    createElement(InputField, {
      label: "Email",
      hint: "We write to it.",
      errors: ["validation.required"],
      inputProps: { id: "f-email", name: "email", required: true },
    }),
  );
  expect(html).toContain(
    '<label class="form-field__label" for="f-email">Email<span class="form-field__required">Required</span></label>',
  );
  expect(html).toContain('<p class="form-field__hint" id="f-email-description">We write to it.</p>');
  expect(attributesOf(html, "input", 'id="f-email"')).toEqual(
    expect.arrayContaining([
      'required=""',
      'aria-invalid="true"',
      'aria-describedby="f-email-description f-email-error"',
    ]),
  );
  expect(html).toContain(
    '<ul class="error-list" id="f-email-error"><li class="error-list__item">Enter this.</li></ul>',
  );
});

test("a valid field is neither invalid nor described by an error list that is not there", () => {
  const html = render(
    createElement(TextareaField, { label: "Detail", textareaProps: { id: "f-detail", name: "detail" } }),
  );
  expect(html).toContain('<textarea id="f-detail" name="detail" class="form-field__control"></textarea>');
  expect(html).not.toContain("aria-");
  expect(html).not.toContain("error-list");
});

test("a checkbox's label wraps it and its error describes it", () => {
  const html = render(
    createElement(CheckboxField, {
      label: "I agree",
      errors: ["validation.agree"],
      inputProps: { id: "f-agree", name: "agree" },
    }),
  );
  expect(html).toMatch(/<label><input [^>]*\/> I agree<\/label>/);
  expect(attributesOf(html, "input", 'id="f-agree"')).toEqual(
    expect.arrayContaining(['type="checkbox"', 'aria-invalid="true"', 'aria-describedby="f-agree-error"']),
  );
  expect(html).toContain('id="f-agree-error"');
});

test("groups are fieldsets with a legend, described by their errors, with the initial choices ticked", () => {
  const options = [
    { value: "a", label: "A" },
    { value: "b", label: "B" },
  ];
  const boxes = render(
    createElement(CheckboxGroupField, {
      legend: "Which?",
      options,
      field: { id: "f-q2", name: "q2", initialValue: "b", errors: ["validation.required"] },
    }),
  );
  expect(boxes).toMatch(/^<fieldset class="form-fieldset" aria-describedby="f-q2-error"><legend>Which\?<\/legend>/);
  expect(attributesOf(boxes, "input", 'value="a"')).toEqual(['id="f-q2"', 'type="checkbox"', 'name="q2"', 'value="a"']);
  expect(attributesOf(boxes, "input", 'value="b"')).toEqual([
    'type="checkbox"',
    'name="q2"',
    'checked=""',
    'value="b"',
  ]);
  const radios = render(
    createElement(RadioGroupField, { legend: "One", options, field: { id: "f-q1", name: "q1", initialValue: "a" } }),
  );
  expect(radios).toContain('<fieldset class="form-fieldset"><legend>One</legend>');
  // The first control carries the field's id: the error summary's link leads there.
  expect(attributesOf(radios, "input", 'value="a"')).toEqual([
    'id="f-q1"',
    'type="radio"',
    'name="q1"',
    'checked=""',
    'value="a"',
  ]);
  expect(attributesOf(radios, "input", 'value="b"')).toEqual(['type="radio"', 'name="q1"', 'value="b"']);
});

test("the form alert is there before any error, with the id Conform points the form at", () => {
  expect(render(createElement(FormAlert, { form: { id: "f", errorId: "f-error" } }))).toBe(
    '<div id="f-summary"><div role="alert" id="f-error"></div></div>',
  );
});

test("after a refusal the form alert is an error summary the page focuses as it loads, linking to the first refused field", () => {
  const refusedByCognito = render(
    createElement(FormAlert, { form: { id: "f", errorId: "f-error", errors: ["validation.required"] } }),
  );
  expect(attributesOf(refusedByCognito, "div", 'id="f-summary"')).toEqual([
    'id="f-summary"',
    'class="error-summary"',
    'tabindex="-1"',
    'autofocus=""',
  ]);
  expect(refusedByCognito).toContain(
    '<div role="alert" id="f-error"><h2 class="error-summary__title">There is a problem</h2><ul class="error-list"><li class="error-list__item">Enter this.</li></ul></div>',
  );
  expect(refusedByCognito).not.toContain("<a ");

  const refusedFields = render(
    createElement(FormAlert, {
      form: { id: "f", errorId: "f-error", allErrors: { q1: ["validation.required"], q2: ["validation.agree"] } },
    }),
  );
  expect(attributesOf(refusedFields, "div", 'id="f-summary"')).toContain('autofocus=""');
  expect(refusedFields).toContain(
    '<p class="error-summary__fields"><a href="#f-q1">Check the fields marked below (2)</a></p>',
  );
});

test("a new-password field asks the password manager for a new password and is described by the rules, then its errors", () => {
  function PasswordForm() {
    const [, fields] = useSchemaForm<z.ZodObject<{ password: z.ZodString }>>(
      { password: { required: true } },
      { status: "error", initialValue: {}, error: { password: ["Too short."] } },
    );
    return createElement(NewPasswordField, { label: "New password", field: fields.password });
  }
  const html = render(createElement(PasswordForm));
  const input = attributesOf(html, "input", 'name="password"');
  const id = input.find((attribute) => attribute.startsWith("id="))?.slice(4, -1);
  expect(input).toEqual(
    expect.arrayContaining([
      'type="password"',
      'required=""',
      'autoComplete="new-password"',
      'enterKeyHint="done"',
      'aria-invalid="true"',
      `aria-describedby="${id}-description ${id}-error"`,
    ]),
  );
  expect(html).toContain(`<p class="form-field__hint" id="${id}-description">At least 8 characters.</p>`);
  expect(html).toContain(`<ul class="error-list" id="${id}-error"><li class="error-list__item">Too short.</li></ul>`);
});

test("a read-only address is shown and offered as the username, and not submitted", () => {
  const html = render(createElement(ReadOnlyEmailField, { label: "Email", email: "a@example.jp" }));
  const input = attributesOf(html, "input", 'value="a@example.jp"');
  expect(input).toEqual(
    expect.arrayContaining(['type="email"', 'readOnly=""', 'autoComplete="username"', 'inputMode="email"']),
  );
  expect(input.some((attribute) => attribute.startsWith("name="))).toBe(false);
  expect(html).toMatch(/<label class="form-field__label" for="[^"]+">Email<\/label>/);
});
