/**
 * Japan's 47 prefectures in JIS X 0401 order: the code is the position plus one ("01" Hokkaido … "47" Okinawa).
 * The Japanese name is what a profile stores, as it stored what members typed before the list existed, and as the
 * member API, the exports and the CSV import (its template says 東京都) already carry it. Display names, English
 * included, are in the "prefectures" locale files under the JIS code.
 */
export const JAPANESE_PREFECTURES = [
  "北海道",
  "青森県",
  "岩手県",
  "宮城県",
  "秋田県",
  "山形県",
  "福島県",
  "茨城県",
  "栃木県",
  "群馬県",
  "埼玉県",
  "千葉県",
  "東京都",
  "神奈川県",
  "新潟県",
  "富山県",
  "石川県",
  "福井県",
  "山梨県",
  "長野県",
  "岐阜県",
  "静岡県",
  "愛知県",
  "三重県",
  "滋賀県",
  "京都府",
  "大阪府",
  "兵庫県",
  "奈良県",
  "和歌山県",
  "鳥取県",
  "島根県",
  "岡山県",
  "広島県",
  "山口県",
  "徳島県",
  "香川県",
  "愛媛県",
  "高知県",
  "福岡県",
  "佐賀県",
  "長崎県",
  "熊本県",
  "大分県",
  "宮崎県",
  "鹿児島県",
  "沖縄県",
] as const;
export type JapanesePrefecture = (typeof JAPANESE_PREFECTURES)[number];

/** The country whose members pick their prefecture from the list. */
export const JAPAN = "JP";

/** "01" … "47". */
export function jisCodeOf(prefecture: JapanesePrefecture): string {
  return String(JAPANESE_PREFECTURES.indexOf(prefecture) + 1).padStart(2, "0");
}

/**
 * The listed prefecture a stored (once free-text) value names, or undefined: the exact name, or the name without
 * its 都/府/県 ("東京" → "東京都"), as members often typed it. So an older profile opens on profile edit with its
 * prefecture chosen instead of an empty list.
 */
export function listedPrefectureOf(stored: string | null | undefined): JapanesePrefecture | undefined {
  const value = stored?.trim();
  if (!value) return undefined;
  return JAPANESE_PREFECTURES.find((name) => name === value || (name !== "北海道" && name.slice(0, -1) === value));
}
