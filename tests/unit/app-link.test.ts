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

const linkProps: LinkProps[] = [
  { to: "/", children: "Home" },
  { to: "/auth/sign-up/", className: "button button--primary", children: "Sign up" },
  { to: "/en/my/devices/?cursor=a%20b&x=1", rel: "next", children: "Older" },
  { to: "/docs/terms-of-use/#article-3", children: "Terms" },
  { to: "/staff/exports/members.csv?encoding=shift_jis", reloadDocument: true, children: "Download" },
  // What <Link> itself renders: a router would resolve or drop a part of each of these.
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

test.each(linkProps)("on the server, AppLink renders what <Link> renders for $to", (props) => {
  expect(renderOnPage(createElement(AppLinkOnServer, props))).toBe(renderOnPage(createElement(Link, props)));
});

test("a path of this app is rendered without <Link>'s hooks, which need a router", () => {
  expect(renderToStaticMarkup(createElement(AppLinkOnServer, { to: "/en/auth/sign-in/", children: "Log in" }))).toBe(
    '<a href="/en/auth/sign-in/" data-discover="true">Log in</a>',
  );
  // <Link> reads the router's context, and fails without one.
  expect(() => renderToStaticMarkup(createElement(AppLinkOnServer, { to: "../auth/", children: "Log in" }))).toThrow();
});
