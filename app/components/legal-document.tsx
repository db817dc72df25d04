/**
 * A legal document (terms of use, privacy policy) as the loader prepared it. The texts arrive as loader data
 * because the "docs" namespace is not sent to the browser with every page (see CLIENT_NAMESPACES).
 */
export type LegalDocumentContent = {
  title: string;
  /** The date the document was adopted, as an ISO date for <time> and as localized text. */
  dated: { iso: string; label: string };
  /** Marks the text as a stand-in until the publisher's own: a short tag and the sentence that explains it. */
  placeholder: { tag: string; notice: string };
  intro: string;
  tableOfContentsLabel: string;
  closing: string;
  articles: LegalArticle[];
};

export type LegalArticle = {
  /** Fragment id, stable across languages so a link to an article survives a language switch. */
  id: string;
  heading: string;
  paragraphs: string[];
  items: string[];
};

export function LegalDocument({ content }: { content: LegalDocumentContent }) {
  return (
    <article className="content legal">
      <header className="legal__header">
        <h1 className="legal__title">{content.title}</h1>
        <p className="legal__dated">
          <time dateTime={content.dated.iso}>{content.dated.label}</time>
        </p>
        <p className="legal__notice" role="note">
          <span className="legal__notice-tag">{content.placeholder.tag}</span>
          <span>{content.placeholder.notice}</span>
        </p>
      </header>
      <p className="legal__intro">{content.intro}</p>
      <nav className="legal__toc" aria-labelledby="legal-toc-heading">
        <h2 id="legal-toc-heading" className="legal__toc-heading">
          {content.tableOfContentsLabel}
        </h2>
        <ol className="legal__toc-list">
          {content.articles.map((article) => (
            <li key={article.id}>
              <a href={`#${article.id}`}>{article.heading}</a>
            </li>
          ))}
        </ol>
      </nav>
      {content.articles.map((article) => (
        <section key={article.id} className="legal__article" aria-labelledby={article.id}>
          <h2 id={article.id} className="legal__article-heading">
            {article.heading}
          </h2>
          {article.paragraphs.map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
          {article.items.length > 0 ? (
            <ol className="legal__items">
              {article.items.map((item, index) => (
                <li key={index}>{item}</li>
              ))}
            </ol>
          ) : null}
        </section>
      ))}
      <p className="legal__closing">{content.closing}</p>
    </article>
  );
}
