import { type JapanesePrefecture, jisCodeOf } from "~/domain/prefectures";
import type { Resources } from "./resources";

/** "names.01" … "names.47": a prefecture's name key in the "prefectures" namespace, under its JIS X 0401 code. */
export type PrefectureNameKey = `names.${keyof Resources["prefectures"]["names"]}`;

export function prefectureNameKey(prefecture: JapanesePrefecture): PrefectureNameKey {
  // jisCodeOf gives "01" … "47" for a listed prefecture; tests/unit/prefectures.test.ts proves every one has a name.
  return `names.${jisCodeOf(prefecture)}` as PrefectureNameKey;
}
