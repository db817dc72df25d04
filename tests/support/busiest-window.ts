/** The most calls in any window of `windowMs` among sorted call times (each window starts at a call): rate checks. */
export function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (let start = 0, end = 0; start < times.length; start++) {
    while (end < times.length && times[end]! < times[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}
