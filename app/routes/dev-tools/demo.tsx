import { useTranslation } from "~/i18n/use-translation";
import { AppLink } from "~/components/app-link";
import { useRootData } from "~/components/use-root-data";
import { getInstance } from "~/middleware/i18n.server";
import { pathFor } from "~/routing/route-table";
import type { Route } from "./+types/demo";

export async function loader({ context }: Route.LoaderArgs) {
  const t = getInstance(context).getFixedT(null, "devtools");
  return { title: t("documentTitle", { title: t("demo.title") }) };
}

/** The internal tools' front page, and what the current request looks like to the layout (theme, member). */
export default function DemoPage() {
  const { t } = useTranslation("devtools");
  const { t: tc } = useTranslation();
  const { locale, theme, member } = useRootData();
  return (
    <div className="content">
      <h1>{t("demo.title")}</h1>
      <p>{t("demo.intro")}</p>
      <h2>{t("demo.tools")}</h2>
      <ul>
        <li>
          <AppLink to={pathFor("rebranding-debugs", locale)}>{t("demo.designDebug")}</AppLink>
        </li>
        <li>
          <AppLink to={pathFor("dev-mailbox", locale)}>{t("demo.mailbox")}</AppLink>
        </li>
      </ul>
      <h2>{t("demo.state")}</h2>
      <dl className="definition-list">
        <dt>{t("demo.locale")}</dt>
        <dd>{locale}</dd>
        <dt>{t("demo.theme")}</dt>
        <dd>
          {tc(`services.${theme}`)} ({theme})<br />
          <small>{t("demo.themeNote")}</small>
        </dd>
        <dt>{t("demo.member")}</dt>
        <dd>{member ? t("demo.signedIn", { name: member.displayName }) : t("demo.signedOut")}</dd>
      </dl>
      <h2>{t("demo.shortcuts")}</h2>
      <p>
        <kbd>Ctrl</kbd>+<kbd>G</kbd>
        {t("demo.gridShortcut")}
      </p>
    </div>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "robots", content: "noindex" },
];
