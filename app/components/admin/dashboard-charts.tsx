import type { DashboardFigures } from "~/domain/staff/admin-dashboard.server";
import { useTranslation } from "~/i18n/use-translation";
import { BarChart } from "./bar-chart";
import { StackedBarChart } from "./stacked-bar-chart";
import { useAdminLabels } from "./use-admin-labels";

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** Sign-ups, cancellations by reason, members by language and by referrer: four server-rendered charts. */
export function AdminDashboard({ figures }: { figures: DashboardFigures }) {
  const { t, i18n } = useTranslation("admin");
  const labels = useAdminLabels();
  const number = new Intl.NumberFormat(i18n.language);
  const signUps = figures.signUpsByMonth.map((entry) => ({ label: entry.month, value: entry.signUps }));
  const peak = signUps.reduce((best, entry) => (entry.value > best.value ? entry : best), { label: "", value: 0 });
  const reasons = [...new Set(figures.cancellationsByMonth.flatMap((entry) => Object.keys(entry.byReason)))];
  const cancellationSeries = reasons.map((reason) => ({
    key: reason,
    label: labels.reason(reason),
    values: figures.cancellationsByMonth.map((entry) => entry.byReason[reason] ?? 0),
  }));
  const languages = figures.membersByLanguage.map((entry) => ({
    label: labels.language(entry.locale),
    value: entry.members,
  }));
  const referrers = figures.membersByReferrer.map((entry) => ({
    label: labels.referrer(entry.service),
    value: entry.members,
  }));
  const totalOf = (bars: readonly { value: number }[]) => number.format(sum(bars.map((bar) => bar.value)));
  return (
    <section className="admin-dashboard" aria-labelledby="admin-dashboard-title">
      <h2 id="admin-dashboard-title">{t("dashboard.title")}</h2>
      <div className="admin-dashboard__charts">
        <BarChart
          title={t("dashboard.signUps.title")}
          description={t("dashboard.signUps.description", {
            peakMonth: peak.label,
            peak: number.format(peak.value),
            total: totalOf(signUps),
          })}
          categoryHeading={t("dashboard.month")}
          valueHeading={t("dashboard.count")}
          bars={signUps}
        />
        <StackedBarChart
          title={t("dashboard.cancellations.title")}
          description={t("dashboard.cancellations.description", {
            total: number.format(sum(figures.cancellationsByMonth.map((entry) => entry.total))),
          })}
          categoryHeading={t("dashboard.month")}
          totalHeading={t("dashboard.total")}
          categories={figures.cancellationsByMonth.map((entry) => entry.month)}
          series={cancellationSeries}
        />
        <BarChart
          title={t("dashboard.byLanguage.title")}
          description={t("dashboard.byLanguage.description", { total: totalOf(languages) })}
          categoryHeading={t("dashboard.language")}
          valueHeading={t("dashboard.count")}
          bars={languages}
        />
        <BarChart
          title={t("dashboard.byReferrer.title")}
          description={t("dashboard.byReferrer.description", { total: totalOf(referrers) })}
          categoryHeading={t("dashboard.referrer")}
          valueHeading={t("dashboard.count")}
          bars={referrers}
        />
      </div>
    </section>
  );
}
