import type { ScaleLinear } from "d3-scale";

/** Every chart draws in the same fixed coordinate space; CSS scales the SVG to its box. */
export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 240;
export const CHART_MARGIN = { top: 12, right: 12, bottom: 28, left: 48 } as const;
export const PLOT_RIGHT = CHART_WIDTH - CHART_MARGIN.right;
export const PLOT_BOTTOM = CHART_HEIGHT - CHART_MARGIN.bottom;

const VALUE_TICK_COUNT = 4;

/** Grid lines and the value labels on the left; the labels are hidden from screen readers (the table has them). */
export function ValueAxis({ scale }: { scale: ScaleLinear<number, number> }) {
  // Counts are whole numbers: a tick at 0.5 members would be noise.
  const ticks = scale.ticks(VALUE_TICK_COUNT).filter(Number.isInteger);
  const format = scale.tickFormat(VALUE_TICK_COUNT, ",d");
  return (
    <g className="admin-chart__axis" aria-hidden="true">
      {ticks.map((tick) => (
        <g key={tick}>
          <line x1={CHART_MARGIN.left} x2={PLOT_RIGHT} y1={scale(tick)} y2={scale(tick)} />
          <text x={CHART_MARGIN.left - 6} y={scale(tick)} dy="0.32em" textAnchor="end">
            {format(tick)}
          </text>
        </g>
      ))}
    </g>
  );
}
