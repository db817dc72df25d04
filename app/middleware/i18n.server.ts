import { type MiddlewareFunction, type RouterContextProvider, createContext } from "react-router";
import { DEFAULT_LOCALE, type Locale, localeFromPathname } from "~/i18n/locales";
import { i18nextFor } from "~/i18n/translator.server";

/**
 * The request's language comes from its path alone (/en/... is English). The ?locale= switch, the
 * i18n_redirected cookie and Accept-Language only decide where to redirect (see locale-routing.server.ts).
 */
const localeContext = createContext<Locale>(DEFAULT_LOCALE);

/**
 * Sets the request's locale. Pages translate with the process's i18next instance for that locale
 * (translator.server.ts), made once at start: remix-i18next's middleware made and initialised a new instance per
 * request, a twentieth of a page view's CPU, though nothing ever changes an instance's language or resources.
 */
export const i18nextMiddleware: MiddlewareFunction<Response> = ({ request, context }, next) => {
  context.set(localeContext, localeFromPathname(new URL(request.url).pathname));
  return next();
};

/** The request's locale. */
export function getLocale(context: Readonly<RouterContextProvider>): Locale {
  return context.get(localeContext);
}

/** i18next in the request's language: `t` and `getFixedT(null, ns)` translate into it. */
export function getInstance(context: Readonly<RouterContextProvider>) {
  return i18nextFor(getLocale(context));
}
