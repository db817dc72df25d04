import { expect, test } from "vitest";
import { parseConfig } from "~/config.server";
import { pathForLog, securityHeaders } from "~/server/security-headers";
import { PRODUCTION_ENV } from "../../support/production-env";

const production = parseConfig({ ...PRODUCTION_ENV, SERVICE_ORIGIN_DATA: "https://data.example.jp/" });

test("production CSP allows only our scripts and the response's nonce, and no framing", () => {
  const headers = securityHeaders(production).forPage("abc123");
  const csp = headers["Content-Security-Policy"];
  expect(csp).toContain("script-src 'self' 'nonce-abc123'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self' https://data.example.jp");
  expect(headers["Strict-Transport-Security"]).toMatch(/max-age=\d+/);
  expect(headers["X-Content-Type-Options"]).toBe("nosniff");
  expect(headers["Referrer-Policy"]).toBe("strict-origin-when-cross-origin");
});

test("plain-http preview has no HSTS", () => {
  const preview = parseConfig({ APP_MODE: "preview" });
  expect(securityHeaders(preview).forPage("n")["Strict-Transport-Security"]).toBeUndefined();
});

test("API answers carry the same headers with a CSP that allows nothing, since JSON runs no script", () => {
  const { forApi, forPage } = securityHeaders(production);
  expect(forApi["Content-Security-Policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
  const { "Content-Security-Policy": _pageCsp, ...pageRest } = forPage("n");
  const { "Content-Security-Policy": _apiCsp, ...apiRest } = forApi;
  expect(apiRest).toEqual(pageRest);
  expect(apiRest["Strict-Transport-Security"]).toMatch(/max-age=\d+/);
});

test("e-mail change and sign-in alert tokens never reach the logs", () => {
  expect(pathForLog("/email-update/s3cr3t-token/")).toBe("/email-update/[token]/");
  expect(pathForLog("/en/email-update/s3cr3t-token/")).toBe("/en/email-update/[token]/");
  expect(pathForLog("/api/email-updates/s3cr3t")).toBe("/api/email-updates/[token]");
  expect(pathForLog("/sign-in-alert/s3cr3t-token/")).toBe("/sign-in-alert/[token]/");
  expect(pathForLog("/en/sign-in-alert/s3cr3t-token/")).toBe("/en/sign-in-alert/[token]/");
  expect(pathForLog("/newsletter/unsubscribe/sub.s1gnature/")).toBe("/newsletter/unsubscribe/[token]/");
  expect(pathForLog("/en/newsletter/unsubscribe/sub.s1gnature/")).toBe("/en/newsletter/unsubscribe/[token]/");
  expect(pathForLog("/my/profile/")).toBe("/my/profile/");
});
