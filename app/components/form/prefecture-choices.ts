import { JAPANESE_PREFECTURES, type JapanesePrefecture, jisCodeOf } from "~/domain/forms/prefectures";
import type { Resources } from "~/i18n/resources";

/** "names.01" … "names.47": a prefecture's name key in the "prefectures" namespace, under its JIS X 0401 code. */
export type PrefectureNameKey = `names.${keyof Resources["prefectures"]["names"]}`;

export function prefectureNameKey(prefecture: JapanesePrefecture): PrefectureNameKey {
  // jisCodeOf gives "01" … "47" for a listed prefecture; tests/unit/forms/prefectures.test.ts proves every one has a
  // name.
  return `names.${jisCodeOf(prefecture)}` as PrefectureNameKey;
}

/**
 * Japan's 47 as the profile form's choices: the value stored (the Japanese name) and the name in the page's language.
 * Loaders send them, like the countries, so the page carries neither the list nor the "prefectures" namespace.
 */
export function prefectureChoices(nameOf: (key: PrefectureNameKey) => string): { value: string; label: string }[] {
  return JAPANESE_PREFECTURES.map((name) => ({ value: name, label: nameOf(prefectureNameKey(name)) }));
}
