import { useTranslation } from "~/i18n/use-translation";

/** One column of the import's header as the page documents it; texts come translated from the loader. */
export interface CsvColumnDoc {
  column: string;
  meaning: string;
  values: string;
  /** The codes a column accepts, each with its label in the page's language (countries, occupations, languages). */
  codes: readonly { code: string; label: string }[];
}

/**
 * The import's header as a table: column name, meaning, allowed values. Long code lists fold into a disclosure that
 * opens without JavaScript, so the table stays short on a phone.
 */
export function CsvColumnsTable({ columns }: { columns: readonly CsvColumnDoc[] }) {
  const { t } = useTranslation("adminImport");
  return (
    <div className="admin-table-scroll">
      <table className="admin-table admin-table--wide" data-testid="csv-columns">
        <caption className="visually-hidden">{t("upload.columnsCaption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("upload.columns.column")}</th>
            <th scope="col">{t("upload.columns.meaning")}</th>
            <th scope="col">{t("upload.columns.values")}</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((doc) => (
            <tr key={doc.column}>
              <th scope="row">
                <code>{doc.column}</code>
              </th>
              <td>{doc.meaning}</td>
              <td>
                {doc.values}
                {doc.codes.length > 0 ? (
                  <CodeList codes={doc.codes} summary={t("upload.values.showCodes", { count: doc.codes.length })} />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CodeList({ codes, summary }: { codes: CsvColumnDoc["codes"]; summary: string }) {
  const list = (
    <dl className="admin-code-list">
      {codes.map(({ code, label }) => (
        <div key={code}>
          <dt>
            <code>{code}</code>
          </dt>
          <dd>{label}</dd>
        </div>
      ))}
    </dl>
  );
  // A handful of codes reads best in place; the thirty countries fold away.
  if (codes.length <= 10) return list;
  return (
    <details className="admin-code-details">
      <summary>{summary}</summary>
      {list}
    </details>
  );
}
