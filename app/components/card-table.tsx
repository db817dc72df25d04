import type { ReactNode } from "react";

/** One column: its head, the grid area its cell takes on a phone, and whether the cell names its column there. */
export interface CardTableColumn<Row> {
  area: string;
  label: string;
  cell: (row: Row) => ReactNode;
  /** On a phone the head row is hidden: a labelled cell shows "label: value". */
  labelled?: boolean;
}

/**
 * A table from 600px and one card per row on a phone (auth.css: `.card-table`, the card's grid areas on the table's
 * own class). The explicit roles keep it a table for screen readers, as some browsers drop table semantics under
 * display: block. The signed-in browsers (/my/devices/, the device-limit screen) and the security activity use it.
 */
export function CardTable<Row extends { id: string }>({
  className,
  columns,
  rows,
}: {
  className: string;
  columns: CardTableColumn<Row>[];
  rows: Row[];
}) {
  return (
    <div className="table-scroll">
      <table className={`card-table ${className}`} role="table">
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) => (
              <th key={column.area} scope="col" role="columnheader">
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.map((row) => (
            <tr key={row.id} role="row">
              {columns.map((column) => (
                <td
                  key={column.area}
                  role="cell"
                  className={`card-table__cell card-table__${column.area}${column.labelled ? " card-table__labelled" : ""}`}
                  data-label={column.labelled ? column.label : undefined}
                >
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
