import { createCookieSessionStorage } from "react-router";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { getConfig } from "~/config.server";

/**
 * Toasts travel in a short-lived signed cookie (remix-toast) so they survive the redirect after a form post
 * and render on the server: visible and dismissing with JavaScript off. The message is a translation key
 * under "toast." so it is shown in the language of the page it lands on.
 */
let toastUtils: ReturnType<typeof createToastUtilsWithCustomSession> | undefined;

export function getToastUtils() {
  if (!toastUtils) {
    const config = getConfig();
    toastUtils = createToastUtilsWithCustomSession(
      createCookieSessionStorage({
        cookie: {
          name: "toast",
          path: "/",
          httpOnly: true,
          sameSite: "lax",
          // remix-toast's own default is the public secret "s3Cr3t" and no Secure flag (STACK.md trap 6).
          secure: config.secureCookies,
          secrets: config.sessionSecrets,
        },
      }),
    );
  }
  return toastUtils;
}
