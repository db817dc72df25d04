import { type ComponentType, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { RouterProvider, createMemoryRouter } from "react-router";
import type { Locale } from "~/i18n/locales";
import { RESOURCES } from "~/i18n/resources";

/** A page component with the data its route would give it. */
export type PageUnderTest = { name: string; component: ComponentType<never>; loaderData: object; actionData?: object };

/**
 * Renders a page component the way its route does, with every namespace's texts and the root's data: what a browser
 * without JavaScript gets, and what a browser with it starts from.
 */
export function renderPage(page: PageUnderTest, locale: Locale): string {
  const Component = page.component as ComponentType<{ loaderData: object; actionData?: object }>;
  const router = createMemoryRouter(
    [
      {
        id: "root",
        path: "/",
        children: [
          {
            id: "page",
            index: true,
            Component: () => createElement(Component, { loaderData: page.loaderData, actionData: page.actionData }),
          },
        ],
      },
    ],
    {
      hydrationData: {
        loaderData: {
          root: { locale, links: { dataTerms: "https://data.example.jp/terms/" } },
          page: { ...page.loaderData, translations: RESOURCES[locale] },
        },
      },
    },
  );
  return renderToStaticMarkup(createElement(RouterProvider, { router }));
}
