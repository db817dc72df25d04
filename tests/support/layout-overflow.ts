import { type Page, expect } from "@playwright/test";

/** What a page shows outside the boxes meant to hold it, as measured in the browser. */
export interface LayoutOverflow {
  /** The page is wider than the window: it scrolls sideways. */
  sideways: { scrollWidth: number; width: number; sticking: string[] } | null;
  /** Boxes whose content is wider than they are, with nothing to scroll it: it spills out or is cut off. */
  boxes: string[];
}

/**
 * Measures both kinds of overflow. A box counts when its content is wider than its inside (scrollWidth over
 * clientWidth) while its overflow is `visible` or `clip`, so what does not fit spills over its neighbours or is cut
 * off where no one can scroll to it; a scroll box (a wide table in its own scroller) and `hidden` (an ellipsis, the
 * visually hidden labels) are meant to hold more than they show. A child sticking out of its parent makes the parent's
 * content wider, so one of these names it too. Only the innermost such boxes are named: their ancestors overflow
 * because of them. Not counted: fields (they scroll what is typed) and what is visually hidden (a one-pixel box that
 * hides it, for screen readers). A pixel of difference is allowed for rounding.
 */
export function measureLayoutOverflow(page: Page): Promise<LayoutOverflow> {
  return page.evaluate(() => {
    const FIELDS = new Set(["INPUT", "TEXTAREA", "SELECT"]);
    const name = (element: Element) => {
      const id = element.id ? `#${element.id}` : "";
      const classes = [...element.classList].map((token) => `.${token}`).join("");
      return `${element.tagName.toLowerCase()}${id}${classes}`;
    };
    const width = window.innerWidth;
    const scrollWidth = document.documentElement.scrollWidth;
    let sideways: LayoutOverflow["sideways"] = null;
    if (scrollWidth > width) {
      // What sticks out of the window, less what a box of its own scrolls. An absolutely placed box escapes the
      // scroll boxes below its containing block (its nearest placed ancestor).
      const clipped = (element: Element) => {
        let placedOnly = getComputedStyle(element).position === "absolute";
        for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
          const style = getComputedStyle(parent);
          if (!placedOnly && style.overflowX !== "visible") return true;
          if (style.position !== "static") placedOnly = false;
        }
        return false;
      };
      const sticking = [...document.body.querySelectorAll("*")]
        .filter((element) => element.getBoundingClientRect().right > width && !clipped(element))
        .slice(0, 5)
        .map(name);
      sideways = { scrollWidth, width, sticking };
    }
    // The visually hidden pattern (a box of a pixel that hides what it holds, for screen readers): nothing to see.
    const visuallyHidden = (element: Element) => {
      for (let box: Element | null = element; box && box !== document.body; box = box.parentElement) {
        if (box.clientWidth <= 1 && getComputedStyle(box).overflowX !== "visible") return true;
      }
      return false;
    };
    const overflowing = [...document.body.querySelectorAll("*")].filter((element) => {
      if (element.clientWidth === 0) return false; // inline boxes and what is not shown have no inside to measure
      if (FIELDS.has(element.tagName)) return false; // a field scrolls the text typed into it
      const overflowX = getComputedStyle(element).overflowX;
      const spills = (overflowX === "visible" || overflowX === "clip") && element.scrollWidth - element.clientWidth > 1;
      return spills && !visuallyHidden(element);
    });
    // The box, by how much, and the first element inside it that reaches past its inner right edge (none: its text).
    const describe = (box: Element) => {
      const inside = box.getBoundingClientRect().left + box.clientLeft + box.clientWidth;
      const sticking = [...box.querySelectorAll("*")].find((child) => child.getBoundingClientRect().right > inside + 1);
      return `${name(box)} by ${box.scrollWidth - box.clientWidth} px${sticking ? `: ${name(sticking)}` : ""}`;
    };
    const boxes = overflowing
      .filter((element) => !overflowing.some((other) => other !== element && element.contains(other)))
      .map(describe);
    return { sideways, boxes };
  });
}

/**
 * The page neither scrolls sideways nor has content wider than a box. Both are reported together: content spilling
 * from a box is often what makes the page scroll, and the boxes name it where what sticks out of the window does not.
 */
export async function expectNoOverflow(page: Page, label: string) {
  const overflow = await measureLayoutOverflow(page);
  expect(overflow, `${label} scrolls sideways or has content wider than its box`).toEqual({
    sideways: null,
    boxes: [],
  });
}
