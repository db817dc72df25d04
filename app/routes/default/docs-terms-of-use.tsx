import { AppLink } from "~/components/app-link";
import { useRootData } from "~/components/use-root-data";
import { pathFor } from "~/routing/route-table";
import { DOCUMENT_PAGE } from "~/routing/document-page";
import type { Route } from "./+types/docs-terms-of-use";
import { formatDocsPageTitle, getDocsT } from "./docs-texts.server";

export async function loader({ context }: Route.LoaderArgs) {
  const t = getDocsT(context);
  const texts = t("termsOfUse", { returnObjects: true });
  return { texts, pageTitle: formatDocsPageTitle(context, texts.title) };
}

/** The three terms: two are ours, the data service publishes its own on its site. */
export default function TermsOfUsePage({ loaderData }: Route.ComponentProps) {
  const { texts } = loaderData;
  const { locale, links } = useRootData();
  return (
    <article className="content terms-index">
      <h1>{texts.title}</h1>
      <p className="content__lead">{texts.lead}</p>
      <ul className="terms-index__list" aria-label={texts.listLabel}>
        <li className="terms-index__item">
          <AppLink to={pathFor("docs-terms-of-use-shinkenchiku-id", locale)} className="terms-index__link">
            {texts.id.name}
          </AppLink>
          <p className="terms-index__description">{texts.id.description}</p>
        </li>
        <li className="terms-index__item">
          <AppLink to={pathFor("docs-terms-of-use-shinkenchiku-online", locale)} className="terms-index__link">
            {texts.online.name}
          </AppLink>
          <p className="terms-index__description">{texts.online.description}</p>
        </li>
        <li className="terms-index__item">
          <a href={links.dataTerms} className="terms-index__link">
            {texts.data.name}
            <span className="terms-index__external">{texts.data.external}</span>
          </a>
          <p className="terms-index__description">{texts.data.description}</p>
        </li>
      </ul>
      <p className="terms-index__privacy">
        {texts.privacyPrompt} <AppLink to={pathFor("docs-privacy-policy", locale)}>{texts.privacyLink}</AppLink>
      </p>
    </article>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => (loaderData ? [{ title: loaderData.pageTitle }] : []);

export const handle = DOCUMENT_PAGE;
