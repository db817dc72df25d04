import { useTranslation } from "~/i18n/use-translation";
import { AppLink } from "~/components/app-link";
import { DEBUG_PAGES } from "~/components/design-debug/debug-pages";
import { useRootData } from "~/components/use-root-data";
import { getInstance } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import type { Route } from "./+types/rebranding-debugs";

export async function loader({ context }: Route.LoaderArgs) {
  const t = getInstance(context).getFixedT(null, "devtools");
  return { title: t("documentTitle", { title: t("debug.title") }) };
}

/** The design-debug index: every subpage with the subject it shows. */
export default function RebrandingDebugsPage() {
  const { t } = useTranslation("devtools");
  const { locale } = useRootData();
  return (
    <div className="content">
      <h1>{t("debug.title")}</h1>
      <p>{t("debug.intro")}</p>
      <ul className="debug-index">
        {DEBUG_PAGES.map((page) => (
          <li key={page} className="debug-index__item">
            <AppLink className="debug-index__link" to={pathFor("rebranding-debugs-page", locale, { page })}>
              <span className="debug-index__code">{page}</span> {t(`debugPages.${page}.title`)}
            </AppLink>
            <p className="debug-index__subject">{t(`debugPages.${page}.subject`)}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "robots", content: "noindex" },
];
