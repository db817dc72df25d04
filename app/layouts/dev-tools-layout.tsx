import { Outlet } from "react-router";
import { FramedErrorPage } from "~/components/error-page";
import { PageFrame } from "~/components/page-frame";
import { NAMESPACES } from "~/i18n/resources";
import { loadTranslations } from "~/i18n/translations.server";
import { requireDevTools } from "~/routing/dev-tools-only.server";
import type { Route } from "./+types/dev-tools-layout";

/**
 * Internal pages exist in development and preview only; as a style guide they show every kind of text, the staff
 * shell's and the members' pages' included, so they get every namespace.
 */
export function loader({ context }: Route.LoaderArgs) {
  requireDevTools(context);
  return { translations: loadTranslations(context, NAMESPACES) };
}

export default function DevToolsLayout() {
  return (
    <PageFrame>
      <div className="dev-tools">
        <Outlet />
      </div>
    </PageFrame>
  );
}

export const ErrorBoundary = FramedErrorPage;
