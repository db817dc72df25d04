/** One problem the dry run found: the row as Excel numbers it (the header is row 1), the column, what is wrong. */
export interface ImportProblem {
  row: number | null;
  column: string | null;
  /** What a problem without a column concerns: the whole row or the whole file. */
  scope: string;
  /** What is wrong, in the page's language (the action translates the dry run's code). */
  message: string;
  /** The offending cell as the file had it, already shortened by the dry run; React escapes it. */
  value: string | null;
}

/** The table's caption and column headings. */
export interface ImportErrorTableTexts {
  caption: string;
  row: string;
  column: string;
  problem: string;
  value: string;
}

/**
 * The dry run's problems by row and column, every text made in the action (describeImportReport); it scrolls inside
 * its own box on a phone.
 */
export function ImportErrorTable({
  texts,
  problems,
}: {
  texts: ImportErrorTableTexts;
  problems: readonly ImportProblem[];
}) {
  return (
    <div className="admin-table-scroll">
      <table className="admin-table admin-table--wide" data-testid="import-errors">
        <caption className="visually-hidden">{texts.caption}</caption>
        <thead>
          <tr>
            <th scope="col" className="admin-table__number">
              {texts.row}
            </th>
            <th scope="col">{texts.column}</th>
            <th scope="col">{texts.problem}</th>
            <th scope="col">{texts.value}</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((problem, index) => (
            <tr key={index}>
              <th scope="row" className="admin-table__number">
                {problem.row ?? "—"}
              </th>
              <td>{problem.column ? <code>{problem.column}</code> : problem.scope}</td>
              <td>{problem.message}</td>
              <td className="admin-table__value">{problem.value ? <code>{problem.value}</code> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
