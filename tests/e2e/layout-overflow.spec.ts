import { expect, test } from "./fixtures";
import { expectNoOverflow, measureLayoutOverflow } from "../support/layout-overflow";

// The layout tour's measure (tests/support/layout-overflow.ts) on pages made to overflow, so its passing means
// something: each kind of overflow it must catch, and the boxes it must leave alone.

test("text wider than its box is named, with the box and by how much", async ({ page }) => {
  await page.setContent(
    `<main style="width: 200px"><p class="label" style="width: 100px; word-break: keep-all">` +
      `パスキーを追加してサインインを簡単にする</p></main>`,
  );
  expect((await measureLayoutOverflow(page)).boxes).toEqual([expect.stringMatching(/^p\.label by \d+ px$/)]);
  await expect(expectNoOverflow(page, "the page")).rejects.toThrow(/wider than its box[\s\S]*p\.label/);
});

test("a child sticking out of its parent is named with the parent, even where the window has room", async ({
  page,
}) => {
  await page.setContent(
    `<div class="card" style="width: 100px; padding: 8px"><button class="wide" style="width: 130px">OK</button></div>`,
  );
  expect(await measureLayoutOverflow(page)).toEqual({
    sideways: null,
    boxes: [expect.stringMatching(/^div\.card by \d+ px: button\.wide$/)],
  });
});

test("a clipped box hiding its content counts; a scroll box, an ellipsis, a field and hidden labels do not", async ({
  page,
}) => {
  const wide = "<span style='display: inline-block; width: 300px'>wide</span>";
  const hidden = "position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%)";
  await page.setContent(
    `<div class="cut" style="width: 100px; overflow-x: clip">${wide}</div>` +
      `<div class="scroller" style="width: 100px; overflow-x: auto">${wide}</div>` +
      `<div style="width: 100px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis">${wide}</div>` +
      `<input style="width: 100px" value="${"a long address typed into a narrow field ".repeat(3)}">` +
      `<table><thead style="${hidden}"><tr><th style="display: block; width: 40px">${wide}</th></tr></thead></table>`,
  );
  expect((await measureLayoutOverflow(page)).boxes).toEqual([expect.stringMatching(/^div\.cut by 200 px: span$/)]);
});

test("a page wider than the window scrolls sideways, naming what sticks out", async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 600 });
  await page.setContent(`<div class="banner" style="width: 400px">banner</div>`);
  const { sideways } = await measureLayoutOverflow(page);
  expect(sideways).toMatchObject({ width: 320, sticking: ["div.banner"] });
  await expect(expectNoOverflow(page, "the page")).rejects.toThrow(/scrolls sideways[\s\S]*div\.banner/);
});
