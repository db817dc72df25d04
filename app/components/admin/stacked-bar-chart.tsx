import { scaleOrdinal } from "d3-scale";
import { stack } from "d3-shape";
import { useId } from "react";
import { ChartFrame, ChartTable } from "./chart-frame";
import { ChartSvg, categoryScale, valueScale } from "./chart-geometry";

export interface StackSeries {
  key: string;
  label: string;
  /** One value per category, in the categories' order. */
  values: readonly number[];
}

/** Enough distinct classes for the cancellation reasons; colours live in admin.css. */
const SERIES_CLASS_COUNT = 8;

/**
 * Categories (months) as vertical bars split by series (reasons), stacked with d3-shape's stack. The legend names
 * each series; the table after the chart holds every number, with a total per category.
 */
export function StackedBarChart({
  title,
  description,
  categoryHeading,
  totalHeading,
  categories,
  series,
}: {
  title: string;
  description: string;
  categoryHeading: string;
  totalHeading: string;
  categories: readonly string[];
  series: readonly StackSeries[];
}) {
  const id = useId();
  const rows = categories.map((category, index) => ({
    category,
    ...Object.fromEntries(series.map((entry) => [entry.key, entry.values[index] ?? 0])),
  }));
  const layers = stack<Record<string, number | string>>()
    .keys(series.map((entry) => entry.key))
    .value((row, key) => Number(row[key] ?? 0))(rows);
  const totals = rows.map((_, index) => series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0));
  const x = categoryScale(categories);
  const y = valueScale(Math.max(...totals));
  const seriesClass = scaleOrdinal<string, string>()
    .domain(series.map((entry) => entry.key))
    .range(Array.from({ length: SERIES_CLASS_COUNT }, (_, index) => `admin-chart__series-${index}`));
  return (
    <ChartFrame id={id} title={title}>
      <ChartSvg id={id} title={title} description={description} x={x} y={y}>
        {layers.map((layer) => (
          <g key={layer.key} className={seriesClass(layer.key)}>
            {layer.map((point, index) => (
              <rect
                key={categories[index]}
                x={x(categories[index] ?? "")}
                y={y(point[1])}
                width={x.bandwidth()}
                height={y(point[0]) - y(point[1])}
              />
            ))}
          </g>
        ))}
      </ChartSvg>
      {/* The legend is for sighted readers; the table below names every series for everyone. */}
      <ul className="admin-chart__legend" aria-hidden="true">
        {series.map((entry) => (
          <li key={entry.key} className={seriesClass(entry.key)}>
            <span className="admin-chart__swatch" />
            {entry.label}
          </li>
        ))}
      </ul>
      <ChartTable
        caption={title}
        headings={[categoryHeading, ...series.map((entry) => entry.label), totalHeading]}
        rows={categories.map((category, index) => ({
          label: category,
          values: [...series.map((entry) => entry.values[index] ?? 0), totals[index] ?? 0],
        }))}
      />
    </ChartFrame>
  );
}
