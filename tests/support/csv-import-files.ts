/** The staff CSV import's columns (docs: the import page's template). */
export const IMPORT_HEADER =
  "email,family_name,given_name,birth_year,country,prefecture,occupation,organization,preferred_language";

/** A valid import file of one member per address, each with a given name of its own. */
export function importCsv(emails: string[]): string {
  const lines = emails.map((email, index) => `${email},山田,花子${index},1990,JP,東京都,design,設計事務所,ja`);
  return `${IMPORT_HEADER}\r\n${lines.join("\r\n")}\r\n`;
}
