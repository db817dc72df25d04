import { expect } from "vitest";
import type { StaffWithAuthenticator } from "./admin-members";
import { cookieHeader, cookieHeaderOf, jarOf } from "./cookie-jar";
import { PageClient } from "./page-client";
import type { TestServer } from "./session-servers";

/**
 * A browser's side of the session tests, over plain HTTP: form posts from our own origin and page views (the cookies
 * they build up are kept by cookie-jar.ts).
 */

/** A form post as a browser on the page's own site sends it (JavaScript off: no redirect followed). */
export function postForm(
  url: string,
  fields: Record<string, string>,
  options: { cookie?: string; headers?: Record<string, string> } = {},
) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      "Sec-Fetch-Site": "same-origin",
      "Accept-Language": "ja",
      ...(options.cookie ? { Cookie: options.cookie } : {}),
      ...options.headers,
    },
    body: new URLSearchParams(fields),
  });
}

/** A form post as a browser on our own origin sends it. */
export function post(server: TestServer, path: string, fields: Record<string, string>, cookie = "") {
  return postForm(`${server.origin}${path}`, fields, { cookie, headers: { Origin: server.origin } });
}

export function get(server: TestServer, path: string, cookie = "") {
  return fetch(`${server.origin}${path}`, {
    redirect: "manual",
    headers: { "Accept-Language": "ja", ...(cookie ? { Cookie: cookie } : {}) },
  });
}

/** The session cookie's pair in a Cookie header. */
export function sessionPair(header: string): string {
  return header.split("; ").find((item) => item.startsWith("id_session=")) ?? "";
}

export async function signIn(server: TestServer, member: { email: string; password: string }, cookie = "") {
  const response = await post(server, "/auth/sign-in/", { intent: "sign-in", ...member }, cookie);
  return { response, cookie: cookieHeader(response) };
}

/** Signs in and checks it worked: the Cookie header of the now signed-in browser. */
export async function signedIn(server: TestServer, member: { email: string; password: string }): Promise<string> {
  const { response, cookie } = await signIn(server, member);
  expect(response.status).toBe(302);
  expect(sessionPair(cookie)).not.toBe("");
  return cookie;
}

/** A staff session opened through the staff sign-in (PageClient.openStaffSession): the Cookie header that holds it. */
export async function staffSignedIn(server: TestServer, staff: StaffWithAuthenticator, cookie = ""): Promise<string> {
  return cookieHeaderOf(await new PageClient(server.process.url).openStaffSession(staff, jarOf(cookie)));
}

// Pages carry their translations as data, so a message counts only where it is rendered.
export const profileEmailIn = (html: string) => /data-testid="email"[^>]*>([^<]*)</.exec(html)?.[1];
