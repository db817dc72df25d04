import { useEffect, useState } from "react";
import type { RootData } from "~/root.server";
import { useTranslation } from "~/i18n/use-translation";
import { useRootData } from "./use-root-data";

type Toast = NonNullable<RootData["toast"]>;
export type ToastKind = "success" | "error" | "info";

// Toasts already on screen once. The root loader keeps returning the same toast object until it runs again, so
// without this a layout change (which remounts the region) would replay an old toast.
const shownToasts = new WeakSet<Toast>();
const toastKeys = new WeakMap<Toast, number>();
let nextToastKey = 0;

function keyOf(toast: Toast): number {
  let key = toastKeys.get(toast);
  if (key === undefined) {
    key = nextToastKey++;
    toastKeys.set(toast, key);
  }
  return key;
}

/**
 * The flash message the last redirect left (remix-toast cookie), rendered on the server. A success or information
 * shows for 1500 ms and then hides by a CSS animation, so it works with JavaScript off; hovering it pauses the
 * countdown. An error stays until dismissed.
 */
export function ToastRegion() {
  const { toast } = useRootData();
  const [staleAtMount] = useState(() => (toast && shownToasts.has(toast) ? toast : null));
  const current = toast && toast !== staleAtMount ? toast : null;
  useEffect(() => {
    if (current) shownToasts.add(current);
  }, [current]);
  return (
    <div className="toast-region">
      {current ? (
        // A new key per toast remounts it, restarting the CSS countdown even when the same message comes twice.
        <ToastMessage key={keyOf(current)} kind={current.type} text={current.text} />
      ) : null}
    </div>
  );
}

type ToastMessageProps = {
  kind: ToastKind;
  /** Already translated (the root loader translates the toast the app sent). */
  text: string;
  /** Stays on screen without the countdown: for the design-debug pages. */
  pinned?: boolean;
};

export function ToastMessage({ kind, text, pinned = false }: ToastMessageProps) {
  const { t } = useTranslation();
  const classes = ["toast", `toast--${kind}`, pinned ? "toast--pinned" : ""].filter(Boolean).join(" ");
  if (kind === "error") {
    // An error stays until the member has read it and dismisses it (WCAG 2.2.1): the dialog's own form closes it,
    // with JavaScript off too. It interrupts (role=alert).
    return (
      <dialog open className={classes} data-testid="toast" data-toast-type={kind}>
        <p role="alert" className="toast__text">
          {text}
        </p>
        <form method="dialog">
          <button type="submit" className="toast__dismiss">
            {t("toast.dismiss")}
          </button>
        </form>
      </dialog>
    );
  }
  // The others wait for a pause in speech, and leave by themselves after the spec's 1500 ms.
  return (
    <div className={classes} data-testid="toast" data-toast-type={kind} role="status" aria-live="polite">
      {text}
    </div>
  );
}
