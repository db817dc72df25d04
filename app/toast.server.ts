import { type RouterContextProvider, createCookieSessionStorage } from "react-router";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { createSignedCookie, oncePerConfig } from "~/cookies/signed-cookie.server";
import { servicesOf } from "~/router-context.server";

/**
 * Toasts travel in a short-lived signed cookie (remix-toast) so they survive the redirect after a form post
 * and render on the server: visible and dismissing with JavaScript off. The message is a translation key
 * under "toast." so it is shown in the language of the page it lands on. The house cookie matters here:
 * remix-toast's own default is the public secret "s3Cr3t" and no Secure flag.
 */
const toastCookieFor = oncePerConfig((config) => createSignedCookie(config, "toast"));
const toastUtilsFor = oncePerConfig((config) =>
  createToastUtilsWithCustomSession(createCookieSessionStorage({ cookie: toastCookieFor(config) })),
);

export function getToastUtils(context: Readonly<RouterContextProvider>) {
  return toastUtilsFor(servicesOf(context).config);
}

/**
 * Whether the request may carry a toast: false when its Cookie header cannot hold the toast cookie, so that pages
 * without one skip reading it (remix-toast signs and serialises an empty session on every read).
 */
export function mayCarryToast(context: Readonly<RouterContextProvider>, request: Request): boolean {
  return (request.headers.get("Cookie") ?? "").includes(`${toastCookieFor(servicesOf(context).config).name}=`);
}
