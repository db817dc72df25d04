import { useId } from "react";
import { ChartFrame, ChartTable } from "./chart-frame";
import type { StackedBarChartData } from "./chart-geometry.server";
import { ChartSvg } from "./chart-svg";

/**
 * Categories (months) as vertical bars split by series (reasons), stacked on the server (chart-geometry.server.ts).
 * The legend names each series; the table after the chart holds every number, with a total per category.
 */
export function StackedBarChart({ chart }: { chart: StackedBarChartData }) {
  const id = useId();
  return (
    <ChartFrame id={id} title={chart.title}>
      <ChartSvg id={id} title={chart.title} description={chart.description} axes={chart.axes}>
        {chart.layers.map((layer) => (
          <g key={layer.key} className={layer.className}>
            {chart.axes.categories.map((category, index) => (
              <rect
                key={category.label}
                x={category.x}
                y={layer.spans[index]?.y}
                width={chart.axes.bandWidth}
                height={layer.spans[index]?.height}
              />
            ))}
          </g>
        ))}
      </ChartSvg>
      {/* The legend is for sighted readers; the table below names every series for everyone. */}
      <ul className="admin-chart__legend" aria-hidden="true">
        {chart.layers.map((layer) => (
          <li key={layer.key} className={layer.className}>
            <span className="admin-chart__swatch" />
            {layer.label}
          </li>
        ))}
      </ul>
      <ChartTable
        caption={chart.title}
        headings={[chart.categoryHeading, ...chart.layers.map((layer) => layer.label), chart.totalHeading]}
        rows={chart.axes.categories.map((category, index) => ({
          label: category.label,
          values: [...chart.layers.map((layer) => layer.values[index] ?? 0), chart.totals[index] ?? 0],
        }))}
      />
    </ChartFrame>
  );
}
