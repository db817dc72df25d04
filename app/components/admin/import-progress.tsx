import { useTranslation } from "~/i18n/use-translation";
import { formatDateTime } from "./formats";

/** A job as its progress page shows it. */
export interface ImportProgressView {
  state: string;
  fileName: string;
  createdByEmail: string;
  createdAt: Date | string;
  startedAt: Date | string | null;
  finishedAt: Date | string | null;
  total: number;
  created: number;
  failed: number;
  skipped: number;
  remaining: number;
  /** Seconds left at the pace the job can go, or null before there is anything to estimate from. */
  etaSeconds: number | null;
  creationsPerSecond: number | null;
}

type DurationText = (key: "duration.seconds" | "duration.minutes" | "duration.hours", values: object) => string;

/** A time left as staff want to read it: seconds under a minute, minutes under an hour, else hours and minutes. */
export function formatTimeLeft(seconds: number, t: DurationText): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 60) return t("duration.seconds", { count: whole });
  const minutes = Math.ceil(whole / 60);
  if (minutes < 60) return t("duration.minutes", { count: minutes });
  return t("duration.hours", { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/** The job's facts, its counts, a progress bar and the estimate of the time left. */
export function ImportProgress({ job }: { job: ImportProgressView }) {
  const { t, i18n } = useTranslation("adminImport");
  const translate = t as unknown as (key: string) => string;
  const done = job.created + job.failed + job.skipped;
  const percent = job.total === 0 ? 100 : Math.floor((done / job.total) * 100);
  const active = job.state === "queued" || job.state === "running";
  return (
    <>
      <dl className="admin-facts" data-testid="import-facts">
        <dt>{t("job.state")}</dt>
        <dd data-testid="import-state">{translate(`csvImport:states.${job.state}`)}</dd>
        <dt>{t("job.file")}</dt>
        <dd>{job.fileName}</dd>
        <dt>{t("job.by")}</dt>
        <dd>{job.createdByEmail}</dd>
        <dt>{t("job.createdAt")}</dt>
        <dd>{formatDateTime(job.createdAt, i18n.language)}</dd>
        {job.startedAt ? (
          <>
            <dt>{t("job.startedAt")}</dt>
            <dd>{formatDateTime(job.startedAt, i18n.language)}</dd>
          </>
        ) : null}
        {job.finishedAt ? (
          <>
            <dt>{t("job.finishedAt")}</dt>
            <dd>{formatDateTime(job.finishedAt, i18n.language)}</dd>
          </>
        ) : null}
      </dl>
      <dl className="import-counts" data-testid="import-counts">
        <div>
          <dt>{t("job.created")}</dt>
          <dd data-testid="import-created">{job.created}</dd>
        </div>
        <div>
          <dt>{t("job.failed")}</dt>
          <dd data-testid="import-failed">{job.failed}</dd>
        </div>
        <div>
          <dt>{t("job.remaining")}</dt>
          <dd data-testid="import-remaining">{job.remaining}</dd>
        </div>
        <div>
          <dt>{t("job.total")}</dt>
          <dd>{job.total}</dd>
        </div>
      </dl>
      <div className="import-progress">
        <label htmlFor="import-progress-bar">{t("job.progressLabel")}</label>
        <progress id="import-progress-bar" max={Math.max(job.total, 1)} value={job.total === 0 ? 1 : done}>
          {percent}%
        </progress>
        <p>{t("job.progressText", { done, total: job.total, percent })}</p>
        {active ? (
          <p data-testid="import-eta">
            {job.etaSeconds === null
              ? t("job.etaUnknown")
              : t("job.eta", { time: formatTimeLeft(job.etaSeconds, t as unknown as DurationText) })}
          </p>
        ) : null}
        {active && job.creationsPerSecond ? <p>{t("job.rate", { rate: job.creationsPerSecond })}</p> : null}
      </div>
    </>
  );
}
