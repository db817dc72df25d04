import { type SubmissionResult, getFormProps, getInputProps } from "@conform-to/react";
import { Form, data, redirect, useNavigation } from "react-router";
import { z } from "zod";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button } from "~/components/button";
import { ImportErrorTable } from "~/components/admin/import-error-table";
import { ImportJobTable, type ImportJobSummary } from "~/components/admin/import-job-table";
import { formatDateTime } from "~/components/admin/formats";
import { FormAlert, InputField } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { CSV_IMPORT_MAX_FILE_BYTES, CSV_IMPORT_MAX_ROWS } from "~/domain/csv-import/csv-import-file.server";
import { validateImport } from "~/domain/csv-import/import-dry-run.server";
import { ImportFileSchema, ValidatedImportJobSchema } from "~/domain/forms/staff-schemas";
import {
  cancelImportJob,
  getImportJobProgress,
  listImportJobs,
  startImportJob,
} from "~/domain/csv-import/import-jobs.server";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { requireRecentStaffConfirmation } from "~/middleware/staff-session.server";
import { pathFor } from "~/routing/route-table";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/admin-csv-import";
import { describeImportReport, formatMegabytes } from "./admin-csv-import.server";

type ImportReportView = ReturnType<typeof describeImportReport>;

/**
 * The upload's file name as the job keeps it and the pages show it: a browser sends the name the file had, but a
 * hand-made post may send anything, and PostgreSQL's text holds neither NUL nor a lone surrogate.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this drops
const UNSHOWABLE_IN_FILE_NAME = /[\u0000-\u001f\u007f]|[\uD800-\uDFFF]/gu;
const FILE_NAME_MAX_CHARS = 255;

function fileNameOf(file: File): string {
  return file.name.replace(UNSHOWABLE_IN_FILE_NAME, "").slice(0, FILE_NAME_MAX_CHARS) || "upload.csv";
}

/** How many recent imports the page lists (each links to its progress page). */
const RECENT_JOBS_SHOWN = 20;

const ReadySchema = z.uuid().optional().catch(undefined);

/** The texts of the format section and the recent jobs, which the page shows on every view. */
const ALWAYS_SHOWN_KEYS = [
  "jobs",
  ...["title", "lead", "steps", "formatTitle", "encodings", "caps", "headerRule", "formulaRule", "template"].map(
    (key) => `upload.${key}`,
  ),
  "upload.columnsLink",
];

/**
 * The page's texts: the upload form's, or the checked file's panel's when a job waits to start (the page shows one or
 * the other). The dry run's report (describeImportReport, in the action's reply), the jobs' times and states and the
 * form's errors come made, so the texts they are made of stay on the server. The columns and the codes they accept
 * are a page of their own (admin-csv-import-columns), a document without scripts: this page, which needs its
 * scripts for the forms, does not carry that reference as data to hydrate.
 */
const UPLOAD_FORM_TEXTS = [
  {
    namespace: "adminImport",
    keys: [...["formTitle", "file", "fileHint", "check"].map((key) => `upload.${key}`), ...ALWAYS_SHOWN_KEYS],
  },
  FORM_FIELD_TEXTS,
] as const;
const READY_JOB_TEXTS = [
  {
    namespace: "adminImport",
    keys: [
      ...["readyTitle", "ready", "readyNote", "start", "discard"].map((key) => `report.${key}`),
      ...ALWAYS_SHOWN_KEYS,
    ],
  },
  FORM_FIELD_TEXTS,
] as const;

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const { db } = servicesOf(context);
  const locale = getLocale(context);
  const i18n = getInstance(context);
  const t = i18n.getFixedT(locale, "adminImport");
  // A clean dry run redirects here with its job: the page offers to start it (a reload never posts the file again).
  const readyId = ReadySchema.parse(url.searchParams.get("ready") ?? undefined);
  const [jobs, readyJob] = await Promise.all([
    listImportJobs(db, { limit: RECENT_JOBS_SHOWN }),
    readyId ? getImportJobProgress(db, readyId) : null,
  ]);
  // Only a job still waiting to start: once started (or discarded), the link leads to nothing to do here.
  const ready =
    readyJob?.state === "validated"
      ? { id: readyJob.id, fileName: readyJob.fileName, totalRows: readyJob.totalRows }
      : null;
  return {
    title: t("meta.upload"),
    // The constraint of the one form the page shows: the checked file's panel or the upload form.
    constraint: formConstraint(ready ? ValidatedImportJobSchema : ImportFileSchema),
    maxSize: formatMegabytes(CSV_IMPORT_MAX_FILE_BYTES, locale),
    maxRows: CSV_IMPORT_MAX_ROWS.toLocaleString(locale),
    jobs: jobs.map((job): ImportJobSummary => ({
      id: job.id,
      createdAt: formatDateTime(job.createdAt, locale),
      fileName: job.fileName,
      state: i18n.getFixedT(locale, "csvImport")(`states.${job.state}` as never),
      created: job.counts.created,
      failed: job.counts.failed,
      total: job.totalRows,
      createdByEmail: job.createdBy.email,
    })),
    ready,
    translations: loadTranslations(context, ready ? READY_JOB_TEXTS : UPLOAD_FORM_TEXTS),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const admin = requireAdmin(context, url);
  const formData = await request.formData();
  const services = servicesOf(context);
  const locale = getLocale(context);
  const actor = { sub: admin.sub, email: admin.email };
  const { requestId } = context.get(requestInfoContext);

  const staffLimit = { action: "staffAction", subject: admin.sub } as const;

  if (formData.has("intent")) {
    return handleFormPost(
      context,
      formData,
      { schema: ValidatedImportJobSchema, extra: { form: "validated" as const }, attemptLimit: () => staffLimit },
      async ({ intent, jobId }) => {
        const toast = getToastUtils(context);
        if (intent === "start") {
          // Creating accounts in bulk needs the password and code within the last 10 minutes (docs/security.md, "Staff
          // rights on the admin API"): confirmed, the staff member is back at the checked file, ready to start it.
          await requireRecentStaffConfirmation(context, url, admin, {
            returnTo: `${pathFor("admin-csv-import", locale)}?ready=${jobId}`,
          });
          // Starting twice (a double click, a second tab) changes nothing: either way staff land on the job's page.
          const job = await startImportJob(services, {
            jobId,
            actor,
            requestId,
            creationsPerSecond: services.config.csvImport.creationsPerSecond,
          });
          if (!job) throw data(null, { status: 404 });
          return toast.redirectWithSuccess(
            pathFor("admin-csv-import-job", locale, { id: jobId }),
            "adminImport:toasts.started",
          );
        }
        // Discarding is for a job nobody started: a stale page's button must not cancel an import that runs
        // meanwhile.
        const current = await getImportJobProgress(services.db, jobId);
        if (!current) throw data(null, { status: 404 });
        if (current.state !== "validated") throw redirect(pathFor("admin-csv-import-job", locale, { id: jobId }));
        await cancelImportJob(services, { jobId, actor, requestId });
        return toast.redirectWithSuccess(pathFor("admin-csv-import", locale), "adminImport:toasts.discarded");
      },
    );
  }

  return handleFormPost(
    context,
    formData,
    { schema: ImportFileSchema, extra: { form: "file" as const }, attemptLimit: () => staffLimit },
    async ({ file }, reply) => {
      const checked = await validateImport(services, {
        bytes: new Uint8Array(await file.arrayBuffer()),
        fileName: fileNameOf(file),
        actor,
        requestId,
        store: true,
      });
      // Clean: the job waits for "start" on a page of its own URL, so a reload shows it again rather than re-posting.
      if (checked.kind === "clean" && checked.jobId) {
        throw redirect(`${pathFor("admin-csv-import", locale)}?ready=${checked.jobId}`);
      }
      const report = describeImportReport(
        checked.report,
        getInstance(context).getFixedT(locale, ["adminImport", "csvImport"]),
      );
      return data({ form: "file" as const, result: reply(), report }, { status: 400 });
    },
  );
}

export default function CsvImportPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("adminImport");
  // Only the file form's refusal by the dry run carries a report (TypeScript's `in` narrowing leaves it unknown).
  const report = actionData && "report" in actionData ? (actionData.report as ImportReportView) : null;
  return (
    <>
      <section className="admin-section" aria-labelledby="csv-import-title">
        <h2 id="csv-import-title">{t("upload.title")}</h2>
        <p>{t("upload.lead")}</p>
        <p>{t("upload.steps")}</p>
      </section>
      {report ? <ImportReport report={report} /> : null}
      {loaderData.ready ? (
        <ReadyPanel
          job={loaderData.ready}
          constraint={loaderData.constraint}
          lastResult={actionData?.form === "validated" ? actionData.result : undefined}
        />
      ) : (
        <UploadForm
          constraint={loaderData.constraint}
          lastResult={actionData?.form === "file" ? actionData.result : undefined}
        />
      )}
      <section className="admin-section" aria-labelledby="csv-format-title">
        <h3 id="csv-format-title">{t("upload.formatTitle")}</h3>
        <ul>
          <li>{t("upload.encodings")}</li>
          <li>{t("upload.caps", { maxSize: loaderData.maxSize, maxRows: loaderData.maxRows })}</li>
          <li>{t("upload.headerRule")}</li>
          <li>{t("upload.formulaRule")}</li>
        </ul>
        <p>
          <AppLink to={pathFor("admin-csv-import-columns", i18n.language)}>{t("upload.columnsLink")}</AppLink>
        </p>
        <p>
          {/* A download, not a page: the browser must fetch it itself, with or without JavaScript. */}
          <AppLink to={pathFor("admin-csv-import-template", i18n.language)} reloadDocument>
            {t("upload.template")}
          </AppLink>
        </p>
      </section>
      <section className="admin-section" aria-labelledby="csv-jobs-title">
        <h3 id="csv-jobs-title">{t("jobs.title")}</h3>
        {loaderData.jobs.length === 0 ? <p>{t("jobs.empty")}</p> : <ImportJobTable jobs={loaderData.jobs} />}
      </section>
    </>
  );
}

function UploadForm({
  constraint,
  lastResult,
}: {
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("adminImport");
  const navigation = useNavigation();
  const [form, fields] = useSchemaForm<typeof ImportFileSchema>(constraint, lastResult);
  return (
    <section className="admin-section" aria-labelledby="csv-upload-title">
      <h3 id="csv-upload-title">{t("upload.formTitle")}</h3>
      <Form method="post" encType="multipart/form-data" {...getFormProps(form)} className="form import-upload">
        <FormAlert form={form} />
        <InputField
          label={t("upload.file")}
          hint={t("upload.fileHint")}
          errors={fields.file.errors}
          inputProps={{ ...getInputProps(fields.file, { type: "file" }), accept: ".csv,text/csv" }}
        />
        <Button pending={navigation.state === "submitting"}>{t("upload.check")}</Button>
      </Form>
    </section>
  );
}

/** The dry run found problems: a summary, the problems by row and column, and what to do. */
function ImportReport({ report }: { report: ImportReportView }) {
  return (
    <section className="admin-section" aria-labelledby="csv-report-title" data-testid="import-report">
      <h3 id="csv-report-title">{report.title}</h3>
      <div role="alert">
        <p>{report.summary}</p>
      </div>
      {report.shown ? <p>{report.shown}</p> : null}
      <ImportErrorTable texts={report.table} problems={report.problems} />
    </section>
  );
}

type ReadyJob = NonNullable<Route.ComponentProps["loaderData"]["ready"]>;

/** A clean file waits as a validated job: start it, or discard it and upload another. */
function ReadyPanel({
  job,
  constraint,
  lastResult,
}: {
  job: ReadyJob;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("adminImport");
  const navigation = useNavigation();
  const [form] = useSchemaForm<typeof ValidatedImportJobSchema>(constraint, lastResult, {
    defaultValue: { jobId: job.id },
  });
  return (
    <section className="admin-section admin-confirm" aria-labelledby="csv-ready-title" data-testid="import-ready">
      <h3 id="csv-ready-title">{t("report.readyTitle")}</h3>
      <p>{t("report.ready", { file: job.fileName, count: job.totalRows })}</p>
      <p>{t("report.readyNote")}</p>
      <Form method="post" {...getFormProps(form)}>
        <FormAlert form={form} />
        <input type="hidden" name="jobId" value={job.id} />
        <div className="admin-filters__actions">
          <Button name="intent" value="start" pending={navigation.state === "submitting"}>
            {t("report.start")}
          </Button>
          <Button name="intent" value="discard" variant="secondary" pending={navigation.state === "submitting"}>
            {t("report.discard")}
          </Button>
        </div>
      </Form>
    </section>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
