import { useState, useSyncExternalStore } from "react";
import { useTranslation } from "~/i18n/use-translation";

type CopyState = "idle" | "copied" | "failed";

// Whether the clipboard can be written never changes while the page is open: nothing to subscribe to.
const subscribeToNothing = () => () => {};
const clipboardWritable = () => typeof navigator.clipboard?.writeText === "function";
// The server renders no button; hydration adds it where the browser has a clipboard.
const noClipboardOnServer = () => false;

/**
 * The member's Subject ID, quoted in inquiries: monospace, selected whole by one click (user-select: all), and a
 * Copy button. The button needs the page's script and the clipboard, so it appears only once both are there;
 * without JavaScript the number is still one click to select. Texts: "profile" namespace.
 */
export function SubjectId({ value }: { value: string }) {
  const { t } = useTranslation("profile");
  const canCopy = useSyncExternalStore(subscribeToNothing, clipboardWritable, noClipboardOnServer);
  const [state, setState] = useState<CopyState>("idle");

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      // Refused (no permission, or the document lost focus): the number can still be selected by hand.
      setState("failed");
    }
  }

  return (
    <span className="subject-id">
      <code className="subject-id__value" data-testid="subject">
        {value}
      </code>
      {canCopy ? (
        <button
          type="button"
          className="button button--secondary subject-id__copy"
          aria-label={t("subjectCopyLabel")}
          onClick={() => void copy()}
        >
          {t("subjectCopy")}
        </button>
      ) : null}
      <span className="subject-id__status" role="status">
        {state === "copied" ? t("subjectCopied") : state === "failed" ? t("subjectCopyFailed") : null}
      </span>
    </span>
  );
}
