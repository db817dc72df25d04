import { scaleBand, scaleLinear } from "d3-scale";
import { useId } from "react";
import { ChartFrame, ChartTable } from "./chart-frame";
import { CHART_HEIGHT, CHART_MARGIN, CHART_WIDTH, PLOT_BOTTOM, PLOT_RIGHT, ValueAxis } from "./chart-geometry";

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
  const x = scaleBand()
    .domain(bars.map((bar) => bar.label))
    .range([CHART_MARGIN.left, PLOT_RIGHT])
    .padding(0.2);
  const y = scaleLinear()
    .domain([0, Math.max(1, ...bars.map((bar) => bar.value))])
    .nice()
    .range([PLOT_BOTTOM, CHART_MARGIN.top]);
  return (
    <ChartFrame id={id} title={title}>
      <svg
        className="admin-chart__svg"
        viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-desc`}
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <ValueAxis scale={y} />
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
        <g aria-hidden="true" className="admin-chart__ticks">
          {bars.map((bar) => (
            <text key={bar.label} x={(x(bar.label) ?? 0) + x.bandwidth() / 2} y={PLOT_BOTTOM + 16} textAnchor="middle">
              {bar.label}
            </text>
          ))}
        </g>
      </svg>
      <ChartTable
        caption={title}
        headings={[categoryHeading, valueHeading]}
        rows={bars.map((bar) => ({ label: bar.label, values: [bar.value] }))}
      />
    </ChartFrame>
  );
}
