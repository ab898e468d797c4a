// Whether something that just opened is where the user can read it: in every scrolled box
// around it and in the window, either whole or, when taller than what shows, from its top at
// the top of what shows. A result whose first pixels peek in at the bottom edge is not in view.
import type { Locator } from 'playwright-core';

/** A pixel of slack for rounding. */
const SLACK = 1;

export async function inView(locator: Locator): Promise<boolean> {
  return locator.evaluate((element, slack) => {
    // The page's own globals (the tests' types have no DOM library).
    const page = globalThis as unknown as {
      getComputedStyle(e: unknown): { overflowY: string };
      innerHeight: number;
    };
    let { top, bottom } = element.getBoundingClientRect();
    const shown = (from: number, to: number) =>
      top >= from - slack && (bottom <= to + slack || top <= from + slack);
    for (let box = element.parentElement; box !== null; box = box.parentElement) {
      const style = page.getComputedStyle(box);
      if (!/(auto|scroll)/.test(style.overflowY) || box.scrollHeight <= box.clientHeight) continue;
      const from = box.getBoundingClientRect().top + box.clientTop;
      const to = from + box.clientHeight;
      if (!shown(from, to)) return false;
      // What the box cuts off cannot be seen through the boxes around it either.
      top = Math.max(top, from);
      bottom = Math.min(bottom, to);
    }
    return shown(0, page.innerHeight);
  }, SLACK);
}
