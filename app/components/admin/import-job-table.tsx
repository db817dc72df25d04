import { useTranslation } from "~/i18n/use-translation";
import { pathFor } from "~/routing/route-table";
import { AppLink } from "../app-link";

/** A job in the list of recent imports, its time and state already in the page's language (the loader's). */
export interface ImportJobSummary {
  id: string;
  createdAt: string;
  fileName: string;
  state: string;
  created: number;
  failed: number;
  total: number;
  createdByEmail: string;
}

/** Recent imports, newest first, each linking to its progress page. */
export function ImportJobTable({ jobs }: { jobs: readonly ImportJobSummary[] }) {
  const { t, i18n } = useTranslation("adminImport");
  return (
    <div className="admin-table-scroll">
      <table className="admin-table admin-table--wide" data-testid="import-jobs">
        <caption className="visually-hidden">{t("jobs.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("jobs.columns.createdAt")}</th>
            <th scope="col">{t("jobs.columns.file")}</th>
            <th scope="col">{t("jobs.columns.state")}</th>
            <th scope="col" className="admin-table__number">
              {t("jobs.columns.progress")}
            </th>
            <th scope="col">{t("jobs.columns.by")}</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td>
                <AppLink to={pathFor("admin-csv-import-job", i18n.language, { id: job.id })}>{job.createdAt}</AppLink>
              </td>
              <th scope="row" className="admin-table__value">
                {job.fileName}
              </th>
              <td>{job.state}</td>
              <td className="admin-table__number">
                {job.created} / {job.failed} / {job.total}
              </td>
              <td className="admin-table__value">{job.createdByEmail}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
