import { useState } from "react";
import { Button } from "./button";
import { useHydrated } from "./use-hydrated";

/**
 * Recovery codes shown once: the list, a download as a text file (a data: link, so it works without JavaScript) and,
 * where the browser allows it, a copy button (added once the page is interactive: without JavaScript it has nothing to
 * do, so it is not there).
 */
export function RecoveryCodeList({
  codes,
  texts,
  fileName,
}: {
  codes: string[];
  texts: { heading: string; lead: string; download: string; copy: string; copied: string; fileHeader: string };
  fileName: string;
}) {
  const canCopy = useHydrated() && Boolean(navigator.clipboard);
  const [copied, setCopied] = useState(false);
  const file = `${texts.fileHeader}\r\n\r\n${codes.join("\r\n")}\r\n`;
  return (
    <section aria-labelledby="recovery-codes-heading" className="recovery-codes">
      <h2 id="recovery-codes-heading">{texts.heading}</h2>
      <p>{texts.lead}</p>
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
          download={fileName}
        >
          {texts.download}
        </a>
        {canCopy ? (
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              void navigator.clipboard.writeText(codes.join("\n")).then(() => setCopied(true));
            }}
          >
            {copied ? texts.copied : texts.copy}
          </Button>
        ) : null}
      </p>
    </section>
  );
}
