import { type ReactElement, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { RouterProvider, createMemoryRouter } from "react-router";
import { expect, test } from "vitest";
import { BarChart } from "~/components/admin/bar-chart";
import { barChart, stackedBarChart } from "~/components/admin/chart-geometry.server";
import { StackedBarChart } from "~/components/admin/stacked-bar-chart";
import admin from "../../../locales/en/admin.json";

/**
 * Renders a chart the way the dashboard does: its geometry made on the server (chart-geometry.server.ts), drawn
 * inside a route whose loader data carries the "admin" texts.
 */
function render(element: ReactElement): string {
  const router = createMemoryRouter([{ id: "page", path: "/", Component: () => element }], {
    hydrationData: { loaderData: { page: { locale: "en", translations: { admin } } } },
  });
  return renderToStaticMarkup(createElement(RouterProvider, { router }));
}

/** The text of every cell of the chart's table, row by row. */
function tableRows(html: string): string[][] {
  const body = html.slice(html.indexOf("<tbody>"), html.indexOf("</tbody>"));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map(([, row]) =>
    [...(row ?? "").matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map(([, cell]) => cell ?? ""),
  );
}

test("a bar chart is an image named by its title and description, with its numbers in a table", () => {
  const html = render(
    createElement(BarChart, {
      chart: barChart({
        title: "Sign-ups per month",
        description: "Sign-ups in each of the last 3 months.",
        categoryHeading: "Month",
        valueHeading: "Members",
        bars: [
          { label: "2026-09", value: 12 },
          { label: "2026-10", value: 1234 },
          { label: "2026-11", value: 0 },
        ],
      }),
    }),
  );
  const svg = /<svg [^>]*role="img"[^>]*aria-labelledby="([^"]+) ([^"]+)"/.exec(html);
  expect(svg).not.toBeNull();
  const [, titleId, descId] = svg ?? [];
  expect(html).toContain(`<title id="${titleId}">Sign-ups per month</title>`);
  expect(html).toContain(`<desc id="${descId}">Sign-ups in each of the last 3 months.</desc>`);
  expect(tableRows(html)).toEqual([
    ["2026-09", "12"],
    ["2026-10", "1,234"],
    ["2026-11", "0"],
  ]);
  // One bar per category, and the tallest reaches higher (a smaller y) than the others.
  const bars = [...html.matchAll(/<rect x="[^"]+" y="([^"]+)"/g)].map(([, y]) => Number(y));
  expect(bars).toHaveLength(3);
  expect(Math.min(...bars)).toBe(bars[1]);
  // The tick labels repeat the table: hidden from screen readers.
  expect(html).toMatch(/<g aria-hidden="true" class="admin-chart__ticks">/);
});

test("a stacked chart stacks each category's series and totals them in its table", () => {
  const html = render(
    createElement(StackedBarChart, {
      chart: stackedBarChart({
        title: "Cancellations per month by reason",
        description: "Cancellations stacked by reason.",
        categoryHeading: "Month",
        totalHeading: "Total",
        categories: ["2026-10", "2026-11"],
        series: [
          { key: "price", label: "Price", values: [3, 0] },
          { key: "other", label: "Other", values: [1, 5] },
        ],
      }),
    }),
  );
  expect(html).toMatch(/<svg [^>]*role="img"/);
  expect(html).toContain(">Cancellations per month by reason</title>");
  expect(html).toContain(">Cancellations stacked by reason.</desc>");
  expect(tableRows(html)).toEqual([
    ["2026-10", "3", "1", "4"],
    ["2026-11", "0", "5", "5"],
  ]);
  expect(html).toContain('<th scope="col" class="admin-table__number">Price</th>');
  // Two series of two categories: four rectangles, the second series starting where the first ends.
  const rects = [...html.matchAll(/<rect x="([^"]+)" y="([^"]+)" width="[^"]+" height="([^"]+)"/g)].map(
    ([, x, y, height]) => ({ x: Number(x), y: Number(y), height: Number(height) }),
  );
  expect(rects).toHaveLength(4);
  const [priceOctober, , otherOctober] = rects;
  expect(otherOctober?.x).toBe(priceOctober?.x);
  expect((otherOctober?.y ?? 0) + (otherOctober?.height ?? 0)).toBeCloseTo(priceOctober?.y ?? -1);
});
