import { Fragment } from "react";

/** One label and its value; `code` shows an identifier as code, `testId` marks a value the tests read. */
export interface DetailFact {
  label: string;
  value: string;
  code?: boolean;
  testId?: string;
}

export interface DetailTable {
  testId?: string;
  /** Whether each row's first cell names the row (a device does; an e-mail change has no one naming cell). */
  rowHeaders: boolean;
  columns: string[];
  rows: { key: string; cells: string[] }[];
}

/**
 * One section of the member's detail, made by describeMemberDetail on the server: facts or a table, and the text
 * shown instead when it has neither rows nor facts (the Cognito section always has its sub).
 */
export interface DetailSection {
  id: string;
  title: string;
  empty?: string;
  facts?: DetailFact[];
  table?: DetailTable;
}

function Facts({ facts }: { facts: DetailFact[] }) {
  return (
    <dl className="admin-facts">
      {facts.map((fact, index) => (
        // A questionnaire's question may read like a profile field's label, so the position keys the pair.
        <Fragment key={index}>
          <dt>{fact.label}</dt>
          <dd>
            {fact.code ? (
              <code>{fact.value}</code>
            ) : fact.testId ? (
              <span data-testid={fact.testId}>{fact.value}</span>
            ) : (
              fact.value
            )}
          </dd>
        </Fragment>
      ))}
    </dl>
  );
}

/**
 * A table in its scroll box. The box takes keyboard focus and is named by its section's heading: on a phone it
 * scrolls sideways, and a table of plain text has nothing else a keyboard could scroll it with.
 */
function Table({ table, labelledBy }: { table: DetailTable; labelledBy: string }) {
  return (
    <div className="admin-table-scroll" role="region" aria-labelledby={labelledBy} tabIndex={0}>
      <table className="admin-table" data-testid={table.testId}>
        <thead>
          <tr>
            {table.columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row) => (
            <tr key={row.key}>
              {row.cells.map((cell, index) =>
                table.rowHeaders && index === 0 ? (
                  <th key={index} scope="row">
                    {cell}
                  </th>
                ) : (
                  <td key={index}>{cell}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The member as staff see them: Cognito, profile, sessions, e-mail history, cancellation, legacy state. */
export function MemberDetailSections({ sections }: { sections: readonly DetailSection[] }) {
  return (
    <>
      {sections.map((section) => (
        <section key={section.id} className="admin-section" aria-labelledby={section.id}>
          <h3 id={section.id}>{section.title}</h3>
          {section.table && section.table.rows.length > 0 ? (
            <Table table={section.table} labelledBy={section.id} />
          ) : section.facts && section.facts.length > 0 ? (
            <Facts facts={section.facts} />
          ) : (
            <p>{section.empty}</p>
          )}
        </section>
      ))}
    </>
  );
}
