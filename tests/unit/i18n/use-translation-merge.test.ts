import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Outlet, RouterProvider, createMemoryRouter } from "react-router";
import { expect, test } from "vitest";
import { useTranslation } from "~/i18n/use-translation";

function Texts() {
  const { t } = useTranslation("admin");
  return createElement("p", null, `${t("heading")}|${t("list.title")}`);
}

/** The two forms a namespace may travel in: the tree, or its JSON text (what loadTranslations sends). */
const FORMS = [
  { form: "tree", send: (bundle: object) => bundle },
  { form: "JSON text", send: (bundle: object) => JSON.stringify(bundle) },
];

test.each(FORMS)(
  "a namespace a layout and its page each send parts of is looked up in both parts ($form)",
  ({ send }) => {
    const router = createMemoryRouter(
      [
        {
          id: "layout",
          path: "/",
          Component: Outlet,
          children: [{ id: "page", index: true, Component: Texts }],
        },
      ],
      {
        hydrationData: {
          loaderData: {
            layout: { locale: "en", translations: { admin: send({ heading: "Staff" }) } },
            page: { translations: { admin: send({ list: { title: "Members" } }) } },
          },
        },
      },
    );
    expect(renderToStaticMarkup(createElement(RouterProvider, { router }))).toContain("<p>Staff|Members</p>");
  },
);
