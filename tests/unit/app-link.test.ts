import { type ReactElement, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Link, type LinkProps, RouterProvider, createMemoryRouter } from "react-router";
import { expect, test } from "vitest";
import { AppLinkOnServer } from "~/components/app-link";

/** Renders `element` on a page below the English home page, where a relative `to` would resolve. */
function renderOnPage(element: ReactElement): string {
  const router = createMemoryRouter([{ path: "/en/my/profile/", Component: () => element }], {
    initialEntries: ["/en/my/profile/"],
  });
  return renderToStaticMarkup(createElement(RouterProvider, { router }));
}

/** Links as our pages make them: AppLink renders these itself. */
const linksToOurPaths: LinkProps[] = [
  { to: "/", children: "Home" },
  { to: "/auth/sign-up/", className: "button button--primary", children: "Sign up" },
  { to: "/en/my/devices/?cursor=a%20b&x=1", rel: "next", children: "Older" },
  { to: "/docs/terms-of-use/#article-3", children: "Terms" },
  { to: "/staff/exports/members.csv?encoding=shift_jis", reloadDocument: true, children: "Download" },
];

/** Links a router would resolve or drop a part of, or with a prop the plain anchor does not take: <Link> renders these. */
const linksLeftToLink: LinkProps[] = [
  { to: "/en//my/", children: "double slash" },
  { to: "/en/my/../auth/", children: "dot dot" },
  { to: "/en/./my/", children: "dot" },
  { to: "/en/my/?", children: "bare query" },
  { to: "/en/my/#", children: "bare hash" },
  { to: "devices/", children: "relative" },
  { to: "https://www.example.jp/", children: "another origin" },
  { to: { pathname: "/en/my/", search: "?a=1" }, children: "an object" },
  { to: "/en/my/", target: "_blank", children: "a prop the plain anchor does not take" },
];

test.each([...linksToOurPaths, ...linksLeftToLink])(
  "on the server, AppLink renders what <Link> renders for $to",
  (props) => {
    expect(renderOnPage(createElement(AppLinkOnServer, props))).toBe(renderOnPage(createElement(Link, props)));
  },
);

// <Link> reads the router's context and fails without one: these show which of the two rendered the link.
test.each(linksToOurPaths)("AppLink renders $to without <Link>", (props) => {
  expect(renderToStaticMarkup(createElement(AppLinkOnServer, props))).toBe(renderOnPage(createElement(Link, props)));
});

test.each(linksLeftToLink)("AppLink leaves $to to <Link>", (props) => {
  expect(() => renderToStaticMarkup(createElement(AppLinkOnServer, props))).toThrow();
});
