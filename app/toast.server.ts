import { type RouterContextProvider, createCookieSessionStorage } from "react-router";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { createSignedCookie, oncePerConfig } from "~/cookies/signed-cookie.server";
import { servicesOf } from "~/services.server";

/**
 * Toasts travel in a short-lived signed cookie (remix-toast) so they survive the redirect after a form post
 * and render on the server: visible and dismissing with JavaScript off. The message is a translation key
 * under "toast." so it is shown in the language of the page it lands on. The house cookie matters here:
 * remix-toast's own default is the public secret "s3Cr3t" and no Secure flag.
 */
const toastUtilsFor = oncePerConfig((config) =>
  createToastUtilsWithCustomSession(createCookieSessionStorage({ cookie: createSignedCookie(config, "toast") })),
);

export function getToastUtils(context: Readonly<RouterContextProvider>) {
  return toastUtilsFor(servicesOf(context).config);
}
