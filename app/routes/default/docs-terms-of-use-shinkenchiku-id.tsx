import { LegalDocument } from "~/components/legal-document";
import { DOCUMENT_PAGE } from "~/routing/document-page";
import type { Route } from "./+types/docs-terms-of-use-shinkenchiku-id";
import { formatDocsPageTitle, loadLegalDocument } from "./docs-texts.server";

export async function loader({ context }: Route.LoaderArgs) {
  const content = loadLegalDocument(context, "termsId");
  return { content, pageTitle: formatDocsPageTitle(context, content.title) };
}

export default function TermsOfUseIdPage({ loaderData }: Route.ComponentProps) {
  return <LegalDocument content={loaderData.content} />;
}

export const meta: Route.MetaFunction = ({ loaderData }) => (loaderData ? [{ title: loaderData.pageTitle }] : []);

export const handle = DOCUMENT_PAGE;
