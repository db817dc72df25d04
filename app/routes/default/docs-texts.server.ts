import type { RouterContextProvider } from "react-router";
import type { LegalDocumentContent } from "~/components/legal-document";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";

/** Both terms of use and the privacy policy are dated 1 May 2021. */
export const LEGAL_DOCUMENTS_DATED_ISO = "2021-05-01";

export type LegalDocumentKey = "termsId" | "termsOnline" | "privacyPolicy";

/** The request's "docs" translator; the namespace stays on the server, so loaders hand its texts over. */
export function getDocsT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(null, "docs");
}

/** "{{title}} | ID" for a document's <title>, in the request's language. */
export function formatDocsPageTitle(context: Readonly<RouterContextProvider>, title: string): string {
  return getDocsT(context)("common.pageTitle", { title });
}

/** One legal document's texts in the request's language, ready for <LegalDocument>. */
export function loadLegalDocument(
  context: Readonly<RouterContextProvider>,
  key: LegalDocumentKey,
): LegalDocumentContent {
  const t = getDocsT(context);
  const source = t(key, { returnObjects: true });
  // UTC on both sides, so the server's time zone can never move the date by a day.
  const datedLabel = new Intl.DateTimeFormat(getLocale(context), { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(`${LEGAL_DOCUMENTS_DATED_ISO}T00:00:00Z`),
  );
  return {
    title: source.title,
    dated: { iso: LEGAL_DOCUMENTS_DATED_ISO, label: t("common.dated", { date: datedLabel }) },
    placeholder: { tag: t("common.placeholderTag"), notice: t("common.placeholderNotice") },
    intro: source.intro,
    tableOfContentsLabel: t("common.tableOfContents"),
    closing: t("common.closing"),
    articles: source.articles.map((article, index) => ({
      id: `article-${index + 1}`,
      heading: article.heading,
      paragraphs: [...article.paragraphs],
      items: "items" in article && article.items ? [...article.items] : [],
    })),
  };
}
