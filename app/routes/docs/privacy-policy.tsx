import { LegalDocument } from "~/components/legal-document";
import type { Route } from "./+types/privacy-policy";
import { formatDocsPageTitle, loadLegalDocument } from "./docs-texts.server";

export async function loader({ context }: Route.LoaderArgs) {
  const content = loadLegalDocument(context, "privacyPolicy");
  return { content, pageTitle: formatDocsPageTitle(context, content.title) };
}

export default function PrivacyPolicyPage({ loaderData }: Route.ComponentProps) {
  return <LegalDocument content={loaderData.content} />;
}

export const meta: Route.MetaFunction = ({ loaderData }) => (loaderData ? [{ title: loaderData.pageTitle }] : []);
