import { LegalDocument } from "~/components/legal-document";
import { getLocale } from "~/i18n/i18n-middleware.server";
import { pathFor } from "~/routing/route-table";
import { DOCUMENT_PAGE } from "~/routing/document-page";
import type { Route } from "./+types/docs-privacy-policy";
import { formatDocsPageTitle, loadLegalDocument } from "./docs-texts.server";

/**
 * The policy, with or without a token in the path. The spec gives the `{token}` variant but not its meaning; sibling
 * services link with one, so any token shows the same one policy, and the page names the token-less URL as
 * canonical so that it is one document to search engines.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const content = loadLegalDocument(context, "privacyPolicy");
  return {
    content,
    pageTitle: formatDocsPageTitle(context, content.title),
    canonicalPath: params.token === undefined ? null : pathFor("docs-privacy-policy", getLocale(context)),
  };
}

export default function PrivacyPolicyPage({ loaderData }: Route.ComponentProps) {
  return <LegalDocument content={loaderData.content} />;
}

export const meta: Route.MetaFunction = ({ loaderData }) =>
  loaderData
    ? [
        { title: loaderData.pageTitle },
        ...(loaderData.canonicalPath ? [{ tagName: "link", rel: "canonical", href: loaderData.canonicalPath }] : []),
      ]
    : [];

export const handle = DOCUMENT_PAGE;
