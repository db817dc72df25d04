import { type ScaleBand, type ScaleLinear, scaleBand, scaleLinear } from "d3-scale";
import { stack } from "d3-shape";

/**
 * The charts' geometry, computed on the server from d3's scales and stack: the loader sends plain numbers and the
 * components that draw the SVG (bar-chart.tsx, stacked-bar-chart.tsx) import no d3, so the library never reaches
 * the browser.
 */

/**
 * Every chart draws in the same fixed coordinate space, which CSS scales to its box: its text (LABEL_SIZE units,
 * admin.css) is as large on the screen as the box is wide over CHART_WIDTH. Sized for the narrowest box, a 320 px
 * phone's column (288 px), where labels still render at 12 px; admin.css caps the chart's width, and so its labels,
 * on wide screens.
 */
const CHART_WIDTH = 320;
const CHART_HEIGHT = 200;
/** The labels' font size in the drawing's units: admin.css's `.admin-chart__svg text` says the same. */
const LABEL_SIZE = 13.5;
const CHART_MARGIN = { top: 10, right: 8, bottom: 26, left: 52 } as const;
const PLOT_BOTTOM = CHART_HEIGHT - CHART_MARGIN.bottom;
const CATEGORY_LABEL_OFFSET = 18;
/** Space kept between two category labels. */
const LABEL_GAP = 6;
const BAR_PADDING = 0.2;
const VALUE_TICK_COUNT = 4;
/** Enough distinct classes for the cancellation reasons; colours live in admin.css. */
const SERIES_CLASS_COUNT = 8;

/** A tenth of a unit in a 640-wide drawing is finer than a screen shows, and keeps the loader data short. */
const rounded = (coordinate: number) => Math.round(coordinate * 10) / 10;

/** A bar's vertical extent; its band (x and width) is its category's. */
export interface Span {
  y: number;
  height: number;
}

/** The frame every chart shares: grid lines with value labels, and a label under each category. */
export interface ChartAxes {
  /** The SVG's coordinate space. */
  viewBox: string;
  /** A grid line at `y` across the plot, labelled `text` at its left. */
  valueTicks: { y: number; text: string }[];
  gridFrom: number;
  gridTo: number;
  valueLabelX: number;
  /**
   * Each category's band from `x`, `bandWidth` wide; `tick`, its label or "" where the labels would overlap (every
   * second or third one is shown then: the table names them all), is centred under it on the line `categoryLabelY`.
   */
  categories: { label: string; x: number; tick: string }[];
  bandWidth: number;
  categoryLabelY: number;
}

export interface Bar extends Span {
  label: string;
  value: number;
}

/** What a chart says in words: its title and description (the SVG's name) and its table's headings. */
interface ChartTexts {
  title: string;
  description: string;
  categoryHeading: string;
}

export interface BarChartData extends ChartTexts {
  valueHeading: string;
  axes: ChartAxes;
  bars: Bar[];
}

export interface StackSeries {
  key: string;
  label: string;
  /** One value per category, in the categories' order. */
  values: readonly number[];
}

export interface StackedBarChartData extends ChartTexts {
  totalHeading: string;
  axes: ChartAxes;
  /** One layer per series, bottom first: its CSS class, its values and one rectangle per category, in order. */
  layers: {
    key: string;
    label: string;
    className: string;
    values: number[];
    /** One per category, in the categories' order. */
    spans: Span[];
  }[];
  /** Each category's sum over the series. */
  totals: number[];
}

/** One band per category (a month, a language) across the plot. */
function categoryScale(categories: readonly string[]): ScaleBand<string> {
  return scaleBand()
    .domain(categories)
    .range([CHART_MARGIN.left, CHART_WIDTH - CHART_MARGIN.right])
    .padding(BAR_PADDING);
}

/** Counts from 0 up to a round number above the largest (1 when everything is 0, so the axis still reads). */
function valueScale(largest: number): ScaleLinear<number, number> {
  return scaleLinear()
    .domain([0, Math.max(1, largest)])
    .nice()
    .range([PLOT_BOTTOM, CHART_MARGIN.top]);
}

/** A label's width in the drawing's units, near enough: a full em for Japanese characters, about 0.6 for the rest. */
function labelWidth(label: string): number {
  return [...label].reduce((width, character) => width + (character >= "\u2e80" ? 1 : 0.6), 0) * LABEL_SIZE;
}

/** Every how many categories a label fits without touching the next one shown. */
function labelEvery(labels: readonly string[], step: number): number {
  const widest = Math.max(0, ...labels.map(labelWidth));
  return Math.max(1, Math.ceil((widest + LABEL_GAP) / step));
}

function axesOf(x: ScaleBand<string>, y: ScaleLinear<number, number>): ChartAxes {
  // Counts are whole numbers: a tick at 0.5 members would be noise.
  const ticks = y.ticks(VALUE_TICK_COUNT).filter(Number.isInteger);
  const format = y.tickFormat(VALUE_TICK_COUNT, ",d");
  const every = labelEvery(x.domain(), x.step());
  return {
    viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`,
    valueTicks: ticks.map((tick) => ({ y: rounded(y(tick)), text: format(tick) })),
    gridFrom: CHART_MARGIN.left,
    gridTo: CHART_WIDTH - CHART_MARGIN.right,
    valueLabelX: CHART_MARGIN.left - 6,
    categories: x.domain().map((label, index) => ({
      label,
      x: rounded(x(label) ?? 0),
      tick: index % every === 0 ? label : "",
    })),
    bandWidth: rounded(x.bandwidth()),
    categoryLabelY: PLOT_BOTTOM + CATEGORY_LABEL_OFFSET,
  };
}

/** One value per category as vertical bars from the bottom of the plot. */
export function barChart({
  bars: values,
  ...texts
}: ChartTexts & { valueHeading: string; bars: readonly { label: string; value: number }[] }): BarChartData {
  const x = categoryScale(values.map((entry) => entry.label));
  const y = valueScale(Math.max(...values.map((entry) => entry.value)));
  return {
    ...texts,
    axes: axesOf(x, y),
    bars: values.map(({ label, value }) => ({
      label,
      value,
      y: rounded(y(value)),
      height: rounded(PLOT_BOTTOM - rounded(y(value))),
    })),
  };
}

/**
 * Categories (months) as vertical bars split by series (reasons), stacked with d3-shape's stack: each series' rect
 * starts where the one below ends (the edges are rounded once, so they meet exactly).
 */
export function stackedBarChart({
  categories,
  series,
  ...texts
}: ChartTexts & {
  totalHeading: string;
  categories: readonly string[];
  series: readonly StackSeries[];
}): StackedBarChartData {
  const rows = categories.map((_, index) =>
    Object.fromEntries(series.map((entry) => [entry.key, entry.values[index] ?? 0])),
  );
  const layers = stack<Record<string, number>>()
    .keys(series.map((entry) => entry.key))
    .value((row, key) => row[key] ?? 0)(rows);
  const totals = rows.map((_, index) => series.reduce((sum, entry) => sum + (entry.values[index] ?? 0), 0));
  const x = categoryScale(categories);
  const y = valueScale(Math.max(...totals));
  return {
    ...texts,
    axes: axesOf(x, y),
    layers: layers.map((layer, seriesIndex) => ({
      key: layer.key,
      label: series[seriesIndex]?.label ?? layer.key,
      values: categories.map((_, index) => series[seriesIndex]?.values[index] ?? 0),
      className: `admin-chart__series-${seriesIndex % SERIES_CLASS_COUNT}`,
      spans: layer.map(([bottom, top]) => ({
        y: rounded(y(top)),
        height: rounded(rounded(y(bottom)) - rounded(y(top))),
      })),
    })),
    totals,
  };
}
