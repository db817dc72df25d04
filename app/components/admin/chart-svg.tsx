import type { ReactNode } from "react";
import type { ChartAxes } from "./chart-geometry.server";

/**
 * A chart's SVG: an image named by its title and description, the value axis (grid lines and labels), the marks
 * (children) and the category labels under them. The axis and category labels are hidden from screen readers: the
 * table after the chart reads them out. Every coordinate comes from the loader (chart-geometry.server.ts).
 */
export function ChartSvg({
  id,
  title,
  description,
  axes,
  children,
}: {
  id: string;
  title: string;
  description: string;
  axes: ChartAxes;
  children: ReactNode;
}) {
  return (
    <svg className="admin-chart__svg" viewBox={axes.viewBox} role="img" aria-labelledby={`${id}-title ${id}-desc`}>
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <g className="admin-chart__axis" aria-hidden="true">
        {axes.valueTicks.map((tick) => (
          <g key={tick.text}>
            <line x1={axes.gridFrom} x2={axes.gridTo} y1={tick.y} y2={tick.y} />
            <text x={axes.valueLabelX} y={tick.y} dy="0.32em" textAnchor="end">
              {tick.text}
            </text>
          </g>
        ))}
      </g>
      {children}
      <g aria-hidden="true" className="admin-chart__ticks">
        {axes.categories.map((category) => (
          <text key={category.label} x={category.x + axes.bandWidth / 2} y={axes.categoryLabelY} textAnchor="middle">
            {category.tick}
          </text>
        ))}
      </g>
    </svg>
  );
}
