import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Outlet, RouterProvider, createMemoryRouter } from "react-router";
import { expect, test } from "vitest";
import { useTranslation } from "~/i18n/use-translation";

function Texts() {
  const { t } = useTranslation("admin");
  return createElement("p", null, `${t("heading")}|${t("list.title")}`);
}

test("a namespace a layout and its page each send parts of is looked up in both parts", () => {
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
          layout: { locale: "en", translations: { admin: { heading: "Staff" } } },
          page: { translations: { admin: { list: { title: "Members" } } } },
        },
      },
    },
  );
  expect(renderToStaticMarkup(createElement(RouterProvider, { router }))).toContain("<p>Staff|Members</p>");
});
