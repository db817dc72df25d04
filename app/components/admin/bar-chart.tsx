import { useId } from "react";
import { ChartFrame, ChartTable } from "./chart-frame";
import { ChartSvg, PLOT_BOTTOM, categoryScale, valueScale } from "./chart-geometry";

export interface Bar {
  label: string;
  value: number;
}

/**
 * One value per category as vertical bars, drawn on the server from d3 scales: static SVG that needs no script and
 * scales with CSS through its viewBox. The same numbers follow in a table, the chart's text alternative.
 */
export function BarChart({
  title,
  description,
  categoryHeading,
  valueHeading,
  bars,
}: {
  title: string;
  description: string;
  categoryHeading: string;
  valueHeading: string;
  bars: readonly Bar[];
}) {
  const id = useId();
  const x = categoryScale(bars.map((bar) => bar.label));
  const y = valueScale(Math.max(...bars.map((bar) => bar.value)));
  return (
    <ChartFrame id={id} title={title}>
      <ChartSvg id={id} title={title} description={description} x={x} y={y}>
        <g className="admin-chart__bars">
          {bars.map((bar) => (
            <rect
              key={bar.label}
              x={x(bar.label)}
              y={y(bar.value)}
              width={x.bandwidth()}
              height={PLOT_BOTTOM - y(bar.value)}
            />
          ))}
        </g>
      </ChartSvg>
      <ChartTable
        caption={title}
        headings={[categoryHeading, valueHeading]}
        rows={bars.map((bar) => ({ label: bar.label, values: [bar.value] }))}
      />
    </ChartFrame>
  );
}
