/**
 * Loaded (`--import`, after tsx) into a server by survivors.ts. Each SIGUSR2 starts or stops V8's sampling heap
 * profiler in this process's main thread. The first session counts every allocation ("allocated"), the second only
 * those that no young-generation collection freed ("survived"); both count what a full collection freed. A session
 * writes `<mode>.started` into $SURVIVORS_PROFILE_DIR once sampling runs and `<mode>.heapprofile` when it stops.
 */
import { renameSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";
import { isMainThread } from "node:worker_threads";

/** The sessions in the order SIGUSR2 starts them; survivors.ts reads their profiles by these names. */
export const SAMPLING_MODES = [
  { name: "allocated", includeObjectsCollectedByMinorGC: true },
  { name: "survived", includeObjectsCollectedByMinorGC: false },
] as const;
/** Bytes between samples: V8's default (32 kB) would see too few of a page view's objects. */
const SAMPLING_INTERVAL_BYTES = 8192;

const outputDir = process.env.SURVIVORS_PROFILE_DIR;

if (isMainThread && outputDir) {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  let next = 0;
  let sampling: (typeof SAMPLING_MODES)[number]["name"] | null = null;
  const toggle = async () => {
    if (sampling) {
      const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: unknown };
      // Written whole under another name first, so that the bench never reads half a profile.
      const file = path.join(outputDir, `${sampling}.heapprofile`);
      writeFileSync(`${file}.partial`, JSON.stringify(profile));
      renameSync(`${file}.partial`, file);
      sampling = null;
      return;
    }
    const mode = SAMPLING_MODES[next++ % SAMPLING_MODES.length]!;
    await post("HeapProfiler.enable");
    await post("HeapProfiler.startSampling", {
      samplingInterval: SAMPLING_INTERVAL_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: mode.includeObjectsCollectedByMinorGC,
    });
    sampling = mode.name;
    writeFileSync(path.join(outputDir, `${mode.name}.started`), "");
  };
  process.on("SIGUSR2", () => void toggle().catch((error: unknown) => console.error("heap sampling failed:", error)));
}
