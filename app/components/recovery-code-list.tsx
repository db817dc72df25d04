import { useState } from "react";
import { useTranslation } from "~/i18n/use-translation";
import { Button } from "./button";
import { useHydrated } from "./use-hydrated";

/**
 * Recovery codes shown once: the list, a download as a text file (a data: link, so it works without JavaScript) and,
 * where the browser allows it, a copy button (added once the page is interactive: without JavaScript it has nothing to
 * do, so it is not there). Its texts are the "account" namespace's `twoStep` ones, which the pages that show it send.
 */
export function RecoveryCodeList({ codes }: { codes: string[] }) {
  const { t } = useTranslation("account");
  const canCopy = useHydrated() && Boolean(navigator.clipboard);
  const [copied, setCopied] = useState(false);
  const file = `${t("twoStep.fileHeader")}\r\n\r\n${codes.join("\r\n")}\r\n`;
  return (
    <section aria-labelledby="recovery-codes-heading" className="recovery-codes">
      <h2 id="recovery-codes-heading">{t("twoStep.codesHeading")}</h2>
      <p>{t("twoStep.codesLead")}</p>
      <ol className="recovery-codes__list" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p className="actions">
        <a
          className="button button--secondary"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(file)}`}
          download="recovery-codes.txt"
        >
          {t("twoStep.download")}
        </a>
        {canCopy ? (
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              void navigator.clipboard.writeText(codes.join("\n")).then(() => setCopied(true));
            }}
          >
            {copied ? t("twoStep.copied") : t("twoStep.copy")}
          </Button>
        ) : null}
      </p>
    </section>
  );
}
