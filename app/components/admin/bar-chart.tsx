import { useId } from "react";
import { ChartFrame, ChartTable } from "./chart-frame";
import type { BarChartData } from "./chart-geometry.server";
import { ChartSvg } from "./chart-svg";

/**
 * One value per category as vertical bars, drawn from the geometry the loader computed (chart-geometry.server.ts):
 * static SVG that needs no script and scales with CSS through its viewBox. The same numbers follow in a table, the
 * chart's text alternative.
 */
export function BarChart({ chart }: { chart: BarChartData }) {
  const id = useId();
  return (
    <ChartFrame id={id} title={chart.title}>
      <ChartSvg id={id} title={chart.title} description={chart.description} axes={chart.axes}>
        <g className="admin-chart__bars">
          {chart.bars.map((bar, index) => (
            <rect
              key={bar.label}
              x={chart.axes.categories[index]?.x}
              y={bar.y}
              width={chart.axes.bandWidth}
              height={bar.height}
            />
          ))}
        </g>
      </ChartSvg>
      <ChartTable
        caption={chart.title}
        headings={[chart.categoryHeading, chart.valueHeading]}
        rows={chart.bars.map((bar) => ({ label: bar.label, values: [bar.value] }))}
      />
    </ChartFrame>
  );
}
