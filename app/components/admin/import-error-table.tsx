import { useTranslation } from "~/i18n/use-translation";

/** One problem the dry run found: the row as Excel numbers it (the header is row 1), the column, what is wrong. */
export interface ImportProblem {
  row: number | null;
  column: string | null;
  /** What is wrong, in the page's language (the action translates the dry run's code). */
  message: string;
  /** The offending cell as the file had it, already shortened by the dry run; React escapes it. */
  value: string | null;
}

/** The dry run's problems by row and column; it scrolls inside its own box on a phone. */
export function ImportErrorTable({ problems }: { problems: readonly ImportProblem[] }) {
  const { t } = useTranslation("adminImport");
  return (
    <div className="admin-table-scroll">
      <table className="admin-table admin-table--wide" data-testid="import-errors">
        <caption className="visually-hidden">{t("report.tableCaption")}</caption>
        <thead>
          <tr>
            <th scope="col" className="admin-table__number">
              {t("report.columns.row")}
            </th>
            <th scope="col">{t("report.columns.column")}</th>
            <th scope="col">{t("report.columns.problem")}</th>
            <th scope="col">{t("report.columns.value")}</th>
          </tr>
        </thead>
        <tbody>
          {problems.map((problem, index) => (
            <tr key={index}>
              <th scope="row" className="admin-table__number">
                {problem.row ?? "—"}
              </th>
              <td>
                {problem.column ? (
                  <code>{problem.column}</code>
                ) : (
                  t(problem.row === null ? "report.wholeFile" : "report.wholeRow")
                )}
              </td>
              <td>{problem.message}</td>
              <td className="admin-table__value">{problem.value ? <code>{problem.value}</code> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
