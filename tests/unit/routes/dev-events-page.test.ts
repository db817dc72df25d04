import { RouterContextProvider } from "react-router";
import { expect, test } from "vitest";
import { i18nextMiddleware } from "~/i18n/i18n-middleware.server";
import DevEvents, { loader } from "~/routes/dev-tools/dev-events";
import { type CapturedSiblingDelivery, devEventCaptureContext } from "~/router-context.server";
import { renderPage } from "../../support/page-render";

type LoaderArgs = Parameters<typeof loader>[0];

const verified: CapturedSiblingDelivery = {
  id: "1",
  receivedAt: "2026-01-01T15:30:00.000Z",
  service: "data",
  channel: "webhook",
  type: "member.updated",
  eventId: "0b5c1a6e-0000-4000-8000-000000000001",
  headers: { "content-type": "application/json", "webhook-id": "0b5c1a6e-0000-4000-8000-000000000001" },
  body: '{"id":"0b5c1a6e-0000-4000-8000-000000000001","type":"member.updated"}',
  verdict: "verified",
  reason: null,
};
const forged: CapturedSiblingDelivery = {
  ...verified,
  id: "2",
  receivedAt: "2026-01-01T15:31:00.000Z",
  eventId: "0b5c1a6e-0000-4000-8000-000000000002",
  verdict: "rejected",
  reason: "No matching signature found",
};
const logout: CapturedSiblingDelivery = {
  id: "3",
  receivedAt: "2026-01-01T15:32:00.000Z",
  service: "shop",
  channel: "logout",
  type: null,
  eventId: "jti-1",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: "logout_token=eyJ",
  claims: { sub: "member-sub", sid: "session-1" },
  verdict: "unverifiable",
  reason: "http://127.0.0.1:3000/.well-known/jwks.json answered 404",
};

async function loadWith(context: RouterContextProvider, path = "/__dev/events/") {
  const request = new Request(`http://localhost${path}`);
  await i18nextMiddleware({ request, context, params: {}, unstable_pattern: "" } as never, async () => new Response());
  return loader({ context, request, params: {} } as unknown as LoaderArgs);
}

test("the events page groups what the dev entry's event capture received by service, newest first", async () => {
  const context = new RouterContextProvider();
  context.set(devEventCaptureContext, { deliveries: async () => [logout, forged, verified] });
  const loaded = await loadWith(context, "/en/__dev/events/");
  expect(loaded.title).toContain("Events for the sibling services");
  expect(loaded.services).toEqual([
    { service: "data", deliveries: [forged, verified] },
    { service: "compe", deliveries: [] },
    { service: "online", deliveries: [] },
    { service: "shop", deliveries: [logout] },
  ]);
});

test("without an event capture (production) the page does not exist", async () => {
  const thrown = await loadWith(new RouterContextProvider()).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect((thrown as { init?: ResponseInit | null }).init?.status).toBe(404);
});

test("the page shows each delivery's verdict, its time in Japan's time zone, its headers and body, in both languages", () => {
  const loaderData = {
    title: "",
    services: [
      { service: "data" as const, deliveries: [forged, verified] },
      { service: "compe" as const, deliveries: [] },
      { service: "online" as const, deliveries: [] },
      { service: "shop" as const, deliveries: [logout] },
    ],
  };
  const ja = renderPage({ name: "dev-events", component: DevEvents, loaderData }, "ja");
  expect(ja).toContain("データサービス");
  expect(ja).toContain("確認済み");
  expect(ja).toContain("不正（400を返しました）: No matching signature found");
  expect(ja).toContain("確認できません: http://127.0.0.1:3000/.well-known/jwks.json answered 404");
  expect(ja).toContain("まだ何も届いていません。");
  // 15:30 UTC on 1 January is half past midnight on the 2nd in Tokyo, whatever this machine's zone.
  expect(ja).toMatch(/<time dateTime="2026-01-01T15:30:00.000Z">2026\/01\/02 0:30:00<\/time>/);
  expect(ja).toContain("webhook-id: 0b5c1a6e-0000-4000-8000-000000000001");
  expect(ja).toContain("バックチャネル・ログアウト");
  expect(ja).toContain("&quot;sid&quot;: &quot;session-1&quot;");
  // Newest first within a service: the forged delivery came last.
  expect(ja.indexOf("No matching signature found")).toBeLessThan(ja.indexOf("確認済み"));

  const en = renderPage({ name: "dev-events", component: DevEvents, loaderData }, "en");
  expect(en).toContain("Competitions");
  expect(en).toContain("rejected (answered 400): No matching signature found");
  expect(en).toContain("could not verify");
  expect(en).toContain("Nothing received yet.");
});
