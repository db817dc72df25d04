import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { loader } from "~/routes/dev-tools/dev-mailbox";
import { devMailboxContext, type MailboxEntry } from "~/router-context.server";

type LoaderArgs = Parameters<typeof loader>[0];

function loadWith(context: RouterContextProvider) {
  return loader({
    context,
    request: new Request("http://localhost/__dev/mailbox/"),
    params: {},
  } as unknown as LoaderArgs);
}

test("the mailbox page lists what the dev entry's mailbox holds", async () => {
  const entry: MailboxEntry = {
    id: "1",
    receivedAt: "2026-01-01T00:00:00.000Z",
    kind: "code",
    to: ["a@example.jp"],
    subject: "Code",
    text: "123456",
    code: "123456",
  };
  const context = new RouterContextProvider();
  context.set(devMailboxContext, { entries: async () => [entry] });
  expect(await loadWith(context)).toEqual({ entries: [entry] });
});

test("without a mailbox (production) the page does not exist", async () => {
  const thrown = await loadWith(new RouterContextProvider()).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect((thrown as { init?: ResponseInit | null }).init?.status).toBe(404);
});
