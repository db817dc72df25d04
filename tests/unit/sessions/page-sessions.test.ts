import { expect, test } from "vitest";
import { refreshesEarly } from "~/domain/sessions/page-sessions.server";

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const issuedAt = new Date("2026-11-26T09:00:00Z");
const tokenLasting = (ms: number) => ({ issuedAt, expiresAt: new Date(issuedAt.getTime() + ms) });
const before = (token: { expiresAt: Date }, ms: number) => token.expiresAt.getTime() - ms;

test("Cognito's hour-long token is refreshed in its last minute, not before", () => {
  const hour = tokenLasting(60 * MINUTE_MS);
  expect(refreshesEarly(hour, issuedAt.getTime())).toBe(false);
  expect(refreshesEarly(hour, before(hour, MINUTE_MS + SECOND_MS))).toBe(false);
  expect(refreshesEarly(hour, before(hour, MINUTE_MS - SECOND_MS))).toBe(true);
  expect(refreshesEarly(hour, before(hour, 0))).toBe(true);
});

test("a short-lived token is refreshed in the last quarter of its life; a 5-minute one in its last minute", () => {
  const short = tokenLasting(2 * SECOND_MS);
  expect(refreshesEarly(short, before(short, 600))).toBe(false);
  expect(refreshesEarly(short, before(short, 400))).toBe(true);
  const staffLength = tokenLasting(5 * MINUTE_MS);
  expect(refreshesEarly(staffLength, before(staffLength, 61 * SECOND_MS))).toBe(false);
  expect(refreshesEarly(staffLength, before(staffLength, 59 * SECOND_MS))).toBe(true);
});
