import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  data,
  isRouteErrorResponse,
  useLocation,
  useMatches,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import { useNonce } from "./components/nonce";
import { localeFromPathname } from "./i18n/locales";
import { documentLoadsJavaScript } from "./routing/document-page";
import { canonicalUrlMiddleware } from "./middleware/canonical-redirect.server";
import { i18nextMiddleware } from "./i18n/i18n-middleware.server";
import { memberSessionMiddleware } from "./middleware/member-session.server";
import { noStoreMiddleware } from "./middleware/no-store.server";
import { exceptApi, pagesOnly } from "./middleware/pages-only.server";
import { requestLogMiddleware } from "./middleware/request-log.server";
import { loadRootData } from "./root.server";
import appStylesHref from "./styles/app.css?url";

/**
 * Pages only, but for the request log, which the /.well-known/ documents have too: the member API's routes, children
 * of the root as well, skip it all (app/middleware/pages-only.server.ts).
 */
export const middleware: Route.MiddlewareFunction[] = [
  exceptApi(requestLogMiddleware),
  ...[noStoreMiddleware, canonicalUrlMiddleware, i18nextMiddleware, memberSessionMiddleware].map(pagesOnly),
];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { data: rootData, headers } = await loadRootData(request, context);
  return data(rootData, { headers });
}

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: appStylesHref }];

export function Layout({ children }: { children: React.ReactNode }) {
  const rootData = useRouteLoaderData<typeof loader>("root");
  const location = useLocation();
  const nonce = useNonce();
  const loadsJavaScript = documentLoadsJavaScript(useMatches());
  const locale = rootData?.locale ?? localeFromPathname(location.pathname);
  return (
    <html lang={locale} data-theme={rootData?.theme ?? "id"}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        {/* Style sheets come from our origin ('self' in the policy) and need no nonce. */}
        <Links />
      </head>
      <body>
        {children}
        {loadsJavaScript ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

/**
 * The last line of defence: reached only when a layout's own error page failed too, so it depends on nothing
 * that could fail again (no translations, no loader data) and offers the way home in both languages.
 */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const location = useLocation();
  const english = localeFromPathname(location.pathname) === "en";
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <main className="fatal-error">
      <h1>{english ? "Something went wrong" : "エラーが発生しました"}</h1>
      <p>
        {english
          ? `The page could not be shown (${status}). Please try again later.`
          : `ページを表示できませんでした（${status}）。時間をおいて再度お試しください。`}
      </p>
      <p>
        <a href={english ? "/en/" : "/"}>{english ? "Back to home" : "トップページへ戻る"}</a>
      </p>
      {import.meta.env.DEV && error instanceof Error ? <pre>{error.stack}</pre> : null}
    </main>
  );
}
