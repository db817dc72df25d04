import { type ReactNode, useEffect, useState } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { SiteFooter } from "./site-footer";
import { SiteHeader } from "./site-header";
import { ToastRegion } from "./toast-region";
import { useRootData } from "./use-root-data";

/** The default layout: skip link, header, main area, footer and the toast; in development, the grid overlay. */
export function PageFrame({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { devToolsEnabled } = useRootData();
  return (
    <>
      <a className="skip-link" href="#main">
        {t("skipToContent")}
      </a>
      <SiteHeader />
      {/* tabIndex -1: the skip link moves keyboard focus here, not only the scroll position. */}
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <SiteFooter />
      <ToastRegion />
      {devToolsEnabled ? <DevGridOverlay /> : null}
    </>
  );
}

/** The design grid over the page, development and preview only; Ctrl+G shows and hides it. */
function DevGridOverlay() {
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.ctrlKey && !event.altKey && !event.metaKey && event.key.toLowerCase() === "g") {
        // Ctrl+G is "find next" in some browsers; on these pages it belongs to the grid.
        event.preventDefault();
        setVisible((shown) => !shown);
      }
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
  return (
    <div className={visible ? "dev-grid dev-grid--visible" : "dev-grid"} aria-hidden="true" data-testid="dev-grid" />
  );
}
