import { useTranslation } from "~/i18n/use-translation";
import { useMessageTranslator } from "../use-message-translator";

/** One problem the dry run found: the row as Excel numbers it (the header is row 1), the column, what is wrong. */
export interface ImportProblem {
  row: number | null;
  column: string | null;
  /** A stable code; its text is csvImport:problems.<code>, translated here. */
  code: string;
  /** The offending cell as the file had it, already shortened by the dry run; React escapes it. */
  value: string | null;
  /** A duplicate's other row, which the message names. */
  otherRow?: number;
}

/** The import's caps, which the whole-file messages name ("over {{maxMegabytes}} MB", "up to {{maxRows}} rows"). */
export interface ImportLimits {
  maxMegabytes: number;
  maxRows: number;
}

/** The dry run's problems by row and column; it scrolls inside its own box on a phone. */
export function ImportErrorTable({ problems, limits }: { problems: readonly ImportProblem[]; limits: ImportLimits }) {
  const { t } = useTranslation("adminImport");
  const translate = useMessageTranslator();
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
              <td>
                {translate(`csvImport:problems.${problem.code}`, {
                  otherRow: String(problem.otherRow ?? ""),
                  // tooManyRows: the dry run gives the file's row count as the value.
                  rows: problem.value ?? "",
                  maxRows: String(limits.maxRows),
                  maxMegabytes: String(limits.maxMegabytes),
                })}
              </td>
              <td className="admin-table__value">{problem.value ? <code>{problem.value}</code> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
