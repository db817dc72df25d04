import type { TFunction } from "i18next";
import type { DashboardFigures } from "~/domain/staff/admin-dashboard.server";
import { adminLabels } from "./admin-labels.server";
import { type BarChartData, type StackedBarChartData, barChart, stackedBarChart } from "./chart-geometry.server";

type Translator = TFunction<("admin" | "withdrawal")[]>;

export interface DashboardCharts {
  signUps: BarChartData;
  cancellations: StackedBarChartData;
  byLanguage: BarChartData;
  byReferrer: BarChartData;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/**
 * Sign-ups, cancellations by reason, members by language and by referrer: the dashboard's four charts with their
 * texts and labels in the request's language and their geometry, all made on the server, so the page's script
 * carries neither d3 nor the labels' translations.
 */
export function dashboardCharts(figures: DashboardFigures, t: Translator, locale: string): DashboardCharts {
  const number = new Intl.NumberFormat(locale);
  const labels = adminLabels(t);
  const signUps = figures.signUpsByMonth.map((entry) => ({ label: entry.month, value: entry.signUps }));
  const peak = signUps.reduce((best, entry) => (entry.value > best.value ? entry : best), { label: "", value: 0 });
  const reasons = [...new Set(figures.cancellationsByMonth.flatMap((entry) => Object.keys(entry.byReason)))];
  const languages = figures.membersByLanguage.map((entry) => ({
    label: labels.language(entry.locale),
    value: entry.members,
  }));
  const referrers = figures.membersByReferrer.map((entry) => ({
    label: labels.referrer(entry.service),
    value: entry.members,
  }));
  const totalOf = (bars: readonly { value: number }[]) => number.format(sum(bars.map((bar) => bar.value)));
  const month = t("admin:dashboard.month");
  const count = t("admin:dashboard.count");
  return {
    signUps: barChart({
      title: t("admin:dashboard.signUps.title"),
      description: t("admin:dashboard.signUps.description", {
        peakMonth: peak.label,
        peak: number.format(peak.value),
        total: totalOf(signUps),
      }),
      categoryHeading: month,
      valueHeading: count,
      bars: signUps,
    }),
    cancellations: stackedBarChart({
      title: t("admin:dashboard.cancellations.title"),
      description: t("admin:dashboard.cancellations.description", {
        total: number.format(sum(figures.cancellationsByMonth.map((entry) => entry.total))),
      }),
      categoryHeading: month,
      totalHeading: t("admin:dashboard.total"),
      categories: figures.cancellationsByMonth.map((entry) => entry.month),
      series: reasons.map((reason) => ({
        key: reason,
        label: labels.reason(reason),
        values: figures.cancellationsByMonth.map((entry) => entry.byReason[reason] ?? 0),
      })),
    }),
    byLanguage: barChart({
      title: t("admin:dashboard.byLanguage.title"),
      description: t("admin:dashboard.byLanguage.description", { total: totalOf(languages) }),
      categoryHeading: t("admin:dashboard.language"),
      valueHeading: count,
      bars: languages,
    }),
    byReferrer: barChart({
      title: t("admin:dashboard.byReferrer.title"),
      description: t("admin:dashboard.byReferrer.description", { total: totalOf(referrers) }),
      categoryHeading: t("admin:dashboard.referrer"),
      valueHeading: count,
      bars: referrers,
    }),
  };
}
