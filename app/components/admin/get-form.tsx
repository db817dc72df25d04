import type { FormEvent, ReactNode } from "react";
import { Form, useSubmit } from "react-router";

/**
 * A GET form whose URL keeps only the filled-in fields. With JavaScript the empty ones are dropped before the
 * navigation; without it the browser sends them all and the page's loader redirects to the short URL
 * (app/routing/query-params.ts), so both end on the same bookmarkable address.
 */
export function AdminGetForm({
  action,
  className,
  children,
  ...labelling
}: {
  action?: string;
  className?: string;
  children: ReactNode;
  "aria-label"?: string;
  "aria-labelledby"?: string;
}) {
  const submit = useSubmit();
  function submitFilledFields(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const filled = [...new FormData(event.currentTarget)].filter(
      (entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].trim() !== "",
    );
    void submit(new URLSearchParams(filled), { method: "get", action });
  }
  return (
    <Form method="get" action={action} className={className} onSubmit={submitFilledFields} {...labelling}>
      {children}
    </Form>
  );
}
