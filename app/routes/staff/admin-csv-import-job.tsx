import { type SubmissionResult, getFormProps } from "@conform-to/react";
import { useEffect } from "react";
import { Form, data, useNavigation, useRevalidator } from "react-router";
import { z } from "zod";
import { handleFormPost } from "~/forms/form-action.server";
import { FORM_FIELD_TEXTS, formConstraint } from "~/forms/schema-form.server";
import { AppLink } from "~/components/app-link";
import { Button, buttonClassName } from "~/components/button";
import { ImportProgress } from "~/components/admin/import-progress";
import { FormAlert } from "~/components/form/fields";
import { type FormConstraint, useSchemaForm } from "~/components/form/use-schema-form";
import { cancelImportJob, getImportJobProgress } from "~/domain/csv-import/import-jobs.server";
import { CancelImportSchema } from "~/domain/forms/staff-schemas";
import { loadTranslations } from "~/i18n/translations.server";
import { useTranslation } from "~/i18n/use-translation";
import { getInstance, getLocale } from "~/i18n/i18n-middleware.server";
import { requireAdmin } from "~/middleware/require-member.server";
import { pathFor } from "~/routing/route-table";
import { requestInfoContext, servicesOf } from "~/router-context.server";
import { getToastUtils } from "~/toast.server";
import type { Route } from "./+types/admin-csv-import-job";

/**
 * How often a running job's page refreshes itself: with JavaScript by revalidating its data, without it by the
 * browser's meta refresh. A job at 40 rows a second moves by a couple of hundred rows between two looks.
 */
const PROGRESS_REFRESH_S = 5;

const JobIdSchema = z.uuid();
const ConfirmSchema = z.literal("cancel").optional().catch(undefined);

/** The job's id from the URL; a malformed one names no job, so it is the same 404 as an unknown one. */
function jobIdOf(params: { id?: string }): string {
  const id = JobIdSchema.safeParse(params.id);
  if (!id.success) throw data(null, { status: 404 });
  return id.data.toLowerCase();
}

/** A job that is still to run or running changes under the page, which therefore refreshes itself. */
const isActive = (state: string) => state === "queued" || state === "running";

/** The job's facts, its cancel form and its summary; the cancel form's errors come translated from the action. */
const JOB_PAGE_TEXTS = [
  { namespace: "adminImport", keys: ["job", "duration"] },
  { namespace: "csvImport", keys: ["states"] },
  FORM_FIELD_TEXTS,
] as const;

export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireAdmin(context, url);
  const id = jobIdOf(params);
  const job = await getImportJobProgress(servicesOf(context).db, id);
  if (!job) throw data(null, { status: 404 });
  return {
    title: getInstance(context).t("adminImport:meta.job"),
    job: {
      id: job.id,
      state: job.state,
      fileName: job.fileName,
      createdByEmail: job.createdBy.email,
      createdAt: job.createdAt,
      startedAt: job.startedAt,
      finishedAt: job.finishedAt,
      total: job.totalRows,
      created: job.counts.created,
      failed: job.counts.failed,
      skipped: job.counts.skipped,
      remaining: job.remaining,
      etaSeconds: job.etaSeconds,
      creationsPerSecond: job.creationsPerSecond,
    },
    active: isActive(job.state),
    confirm: ConfirmSchema.parse(url.searchParams.get("confirm") ?? undefined) ?? null,
    translations: loadTranslations(context, JOB_PAGE_TEXTS),
    constraint: formConstraint(CancelImportSchema),
  };
}

export async function action({ request, url, params, context }: Route.ActionArgs) {
  const admin = requireAdmin(context, url);
  const id = jobIdOf(params);
  return handleFormPost(
    context,
    await request.formData(),
    { schema: CancelImportSchema, attemptLimit: () => ({ action: "staffAction", subject: admin.sub }) },
    async () => {
      // Cancelling a job that has already ended changes nothing; the page then shows how it ended.
      const job = await cancelImportJob(servicesOf(context), {
        jobId: id,
        actor: { sub: admin.sub, email: admin.email },
        requestId: context.get(requestInfoContext).requestId,
      });
      if (!job) throw data(null, { status: 404 });
      return getToastUtils(context).redirectWithSuccess(
        pathFor("admin-csv-import-job", getLocale(context), { id }),
        "adminImport:toasts.cancelled",
      );
    },
  );
}

export default function CsvImportJobPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation("adminImport");
  const { job, active } = loaderData;
  const jobPath = pathFor("admin-csv-import-job", i18n.language, { id: job.id });
  useRefreshWhile(active);
  return (
    <section className="admin-section" aria-labelledby="import-job-title">
      {active ? (
        // Without JavaScript the browser reloads the page; with it this is inert text and the revalidator polls.
        <noscript>
          <meta httpEquiv="refresh" content={String(PROGRESS_REFRESH_S)} />
        </noscript>
      ) : null}
      <p>
        <AppLink to={pathFor("admin-csv-import", i18n.language)}>{t("job.back")}</AppLink>
      </p>
      <h2 id="import-job-title">{t("job.title")}</h2>
      <ImportProgress job={job} />
      {active ? (
        <p>
          {t("job.refreshing")} <AppLink to={jobPath}>{t("job.reload")}</AppLink>
        </p>
      ) : null}
      {job.state === "validated" ? (
        <p>
          {t("job.notStarted")}{" "}
          <AppLink to={`${pathFor("admin-csv-import", i18n.language)}?ready=${job.id}`}>{t("job.startHere")}</AppLink>
        </p>
      ) : null}
      {active ? (
        loaderData.confirm ? (
          <CancelPanel jobPath={jobPath} constraint={loaderData.constraint} lastResult={actionData?.result} />
        ) : (
          <p>
            {/* A link, not a post: asking to confirm changes nothing, and works without JavaScript. */}
            <AppLink className={buttonClassName({ variant: "secondary" })} to={`${jobPath}?confirm=cancel`}>
              {t("job.cancel")}
            </AppLink>
          </p>
        )
      ) : null}
      {job.state === "completed" || job.state === "cancelled" ? <ImportSummary job={job} /> : null}
    </section>
  );
}

/** With JavaScript, the page's data is fetched again every PROGRESS_REFRESH_S while the job runs, then no more. */
function useRefreshWhile(active: boolean) {
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      // A look still on its way is not doubled on a slow connection.
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, PROGRESS_REFRESH_S * 1000);
    return () => clearInterval(timer);
  }, [active, revalidator]);
}

type Job = Route.ComponentProps["loaderData"]["job"];

/** The end: what was created, what failed (downloadable with its reasons), what was left when cancelled. */
function ImportSummary({ job }: { job: Job }) {
  const { t, i18n } = useTranslation("adminImport");
  const counts = { created: job.created, failed: job.failed, skipped: job.skipped };
  const failedRowsPath = pathFor("admin-csv-import-failed-rows", i18n.language, { id: job.id });
  return (
    <div className="admin-confirm" data-testid="import-summary">
      <h3>{t("job.summaryTitle")}</h3>
      <p>{job.state === "completed" ? t("job.summaryCompleted", counts) : t("job.summaryCancelled", counts)}</p>
      {job.failed > 0 ? (
        <p>
          {/* Downloads, not pages: the browser must fetch them itself, with or without JavaScript. */}
          <AppLink to={failedRowsPath} reloadDocument>
            {t("job.failedRows")}
          </AppLink>{" "}
          <AppLink to={`${failedRowsPath}?encoding=shift_jis`} reloadDocument>
            {t("job.failedRowsShiftJis")}
          </AppLink>
        </p>
      ) : null}
    </div>
  );
}

function CancelPanel({
  jobPath,
  constraint,
  lastResult,
}: {
  jobPath: string;
  constraint: FormConstraint;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const { t } = useTranslation("adminImport");
  const navigation = useNavigation();
  const [form] = useSchemaForm<typeof CancelImportSchema>(constraint, lastResult, {
    defaultValue: { intent: "cancel" },
  });
  return (
    <Form method="post" action={jobPath} {...getFormProps(form)} className="admin-confirm" data-testid="confirm-panel">
      <FormAlert form={form} />
      <p>{t("job.cancelConfirm")}</p>
      <input type="hidden" name="intent" value="cancel" />
      <div className="admin-filters__actions">
        <Button variant="danger" pending={navigation.state === "submitting"}>
          {t("job.cancelSubmit")}
        </Button>
        <AppLink to={jobPath}>{t("job.cancelBack")}</AppLink>
      </div>
    </Form>
  );
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title }];
