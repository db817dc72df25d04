/**
 * The text of the toast a served page shows, undefined when it shows none: a success's or information's own text, an
 * error's alert (its dialog also holds the dismiss button).
 */
export function toastTextIn(html: string): string | undefined {
  const toast = /<(div|dialog)\b[^>]*\bdata-testid="toast"[^>]*>([\s\S]*?)<\/\1>/.exec(html)?.[2];
  if (toast === undefined) return undefined;
  return /<p\b[^>]*\brole="alert"[^>]*>([^<]*)<\/p>/.exec(toast)?.[1] ?? toast;
}
