/**
 * The design-debug subpages (/rebranding-debugs/{page}/). Their names are fixed; the subject of each is ours, and the
 * index page says it (devtools "debugPages.{page}").
 */
export const DEBUG_PAGES = [
  "a-1",
  "a-1a",
  "a-1-pattern2",
  "a-2",
  "b-1-1",
  "b-1-2",
  "b-1-3",
  "b-1-4",
  "b-1-5",
  "c-1",
  "c-2",
  "d-1-1",
  "d-1-2",
  "e-2-1",
  "e-2-2",
  "f-2-1",
  "f-2-2",
  "g-2",
  "i-2-1",
  "i-2-2",
  "j-1-1",
  "j-1-2",
  "toast",
] as const;

export type DebugPage = (typeof DEBUG_PAGES)[number];

export function isDebugPage(value: string | undefined): value is DebugPage {
  return (DEBUG_PAGES as readonly (string | undefined)[]).includes(value);
}
