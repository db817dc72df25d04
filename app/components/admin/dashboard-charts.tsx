import { useTranslation } from "~/i18n/use-translation";
import { BarChart } from "./bar-chart";
import type { DashboardCharts } from "./dashboard-charts.server";
import { StackedBarChart } from "./stacked-bar-chart";

/** Sign-ups, cancellations by reason, members by language and by referrer: four charts the loader drew. */
export function AdminDashboard({ charts }: { charts: DashboardCharts }) {
  const { t } = useTranslation("admin");
  return (
    <section className="admin-dashboard" aria-labelledby="admin-dashboard-title">
      <h2 id="admin-dashboard-title">{t("dashboard.title")}</h2>
      <div className="admin-dashboard__charts">
        <BarChart chart={charts.signUps} />
        <StackedBarChart chart={charts.cancellations} />
        <BarChart chart={charts.byLanguage} />
        <BarChart chart={charts.byReferrer} />
      </div>
    </section>
  );
}
