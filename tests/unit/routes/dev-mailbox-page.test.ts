import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import Mailbox, { loader } from "~/routes/dev-tools/dev-mailbox";
import { devMailboxContext, type MailboxEntry } from "~/router-context.server";
import { renderPage } from "../../support/page-render";

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

test("the mailbox shows a mail's web addresses as links and its time in Japan's time zone", () => {
  const entry: MailboxEntry = {
    id: "2",
    receivedAt: "2026-01-01T15:30:00.000Z",
    kind: "mail",
    to: ["a@example.jp"],
    subject: "ログインのお知らせ",
    text: "確認してください。\nhttp://127.0.0.1:3000/sign-in-alert/abc_DEF-1/?a=1&b=2。お心当たりがない場合は（https://example.jp/help/）へ。",
  };
  const html = renderPage({ name: "mailbox", component: Mailbox, loaderData: { entries: [entry] } }, "ja");
  expect(html).toContain(
    '<a href="http://127.0.0.1:3000/sign-in-alert/abc_DEF-1/?a=1&amp;b=2">http://127.0.0.1:3000/sign-in-alert/abc_DEF-1/?a=1&amp;b=2</a>。',
  );
  expect(html).toContain('<a href="https://example.jp/help/">https://example.jp/help/</a>）へ。');
  // 15:30 UTC on 1 January is half past midnight on the 2nd in Tokyo, whatever this machine's zone.
  expect(html).toMatch(/<time dateTime="2026-01-01T15:30:00.000Z">2026\/01\/02 0:30:00<\/time>/);
  expect(html).toContain("受信日時（日本時間）");
});
