import type { ReactNode } from "react";
import { useTranslation } from "~/i18n/use-translation";

/** A dashboard chart's box: its heading, then the SVG and its table. */
export function ChartFrame({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <figure className="admin-chart" aria-labelledby={`${id}-heading`}>
      <figcaption id={`${id}-heading`} className="admin-chart__heading">
        {title}
      </figcaption>
      {children}
    </figure>
  );
}

/** The chart's numbers as a table (its text alternative), folded in a details element so the dashboard stays short. */
export function ChartTable({
  caption,
  headings,
  rows,
}: {
  caption: string;
  headings: readonly string[];
  rows: readonly { label: string; values: readonly number[] }[];
}) {
  const { t, i18n } = useTranslation("admin");
  const numberFormat = new Intl.NumberFormat(i18n.language);
  return (
    <details className="admin-chart__data">
      <summary>{t("dashboard.showTable")}</summary>
      <div className="admin-table-scroll">
        <table className="admin-table">
          <caption>{caption}</caption>
          <thead>
            <tr>
              {headings.map((heading, index) => (
                <th key={heading} scope="col" className={index > 0 ? "admin-table__number" : undefined}>
                  {heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                {row.values.map((value, index) => (
                  <td key={headings[index + 1]} className="admin-table__number">
                    {numberFormat.format(value)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
