import { type ScaleBand, type ScaleLinear, scaleBand, scaleLinear } from "d3-scale";
import type { ReactNode } from "react";

/** Every chart draws in the same fixed coordinate space; CSS scales the SVG to its box. */
const CHART_WIDTH = 640;
const CHART_HEIGHT = 240;
const CHART_MARGIN = { top: 12, right: 12, bottom: 28, left: 48 } as const;
export const PLOT_BOTTOM = CHART_HEIGHT - CHART_MARGIN.bottom;
const CATEGORY_LABEL_OFFSET = 16;
const BAR_PADDING = 0.2;
const VALUE_TICK_COUNT = 4;

/** One band per category (a month, a language) across the plot. */
export function categoryScale(categories: readonly string[]): ScaleBand<string> {
  return scaleBand()
    .domain(categories)
    .range([CHART_MARGIN.left, CHART_WIDTH - CHART_MARGIN.right])
    .padding(BAR_PADDING);
}

/** Counts from 0 up to a round number above the largest (1 when everything is 0, so the axis still reads). */
export function valueScale(largest: number): ScaleLinear<number, number> {
  return scaleLinear()
    .domain([0, Math.max(1, largest)])
    .nice()
    .range([PLOT_BOTTOM, CHART_MARGIN.top]);
}

/** Grid lines and the value labels on the left; the labels are hidden from screen readers (the table has them). */
function ValueAxis({ scale }: { scale: ScaleLinear<number, number> }) {
  // Counts are whole numbers: a tick at 0.5 members would be noise.
  const ticks = scale.ticks(VALUE_TICK_COUNT).filter(Number.isInteger);
  const format = scale.tickFormat(VALUE_TICK_COUNT, ",d");
  return (
    <g className="admin-chart__axis" aria-hidden="true">
      {ticks.map((tick) => (
        <g key={tick}>
          <line x1={CHART_MARGIN.left} x2={CHART_WIDTH - CHART_MARGIN.right} y1={scale(tick)} y2={scale(tick)} />
          <text x={CHART_MARGIN.left - 6} y={scale(tick)} dy="0.32em" textAnchor="end">
            {format(tick)}
          </text>
        </g>
      ))}
    </g>
  );
}

/**
 * A chart's SVG: an image named by its title and description, the value axis, the marks (children) and the category
 * labels under them, hidden from screen readers like the axis (the table after the chart reads them out).
 */
export function ChartSvg({
  id,
  title,
  description,
  x,
  y,
  children,
}: {
  id: string;
  title: string;
  description: string;
  x: ScaleBand<string>;
  y: ScaleLinear<number, number>;
  children: ReactNode;
}) {
  return (
    <svg
      className="admin-chart__svg"
      viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
    >
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <ValueAxis scale={y} />
      {children}
      <g aria-hidden="true" className="admin-chart__ticks">
        {x.domain().map((category) => (
          <text
            key={category}
            x={(x(category) ?? 0) + x.bandwidth() / 2}
            y={PLOT_BOTTOM + CATEGORY_LABEL_OFFSET}
            textAnchor="middle"
          >
            {category}
          </text>
        ))}
      </g>
    </svg>
  );
}
