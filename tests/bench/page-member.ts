/**
 * Browsers' form posts and sign-ins for the benchmarks: the sign-in loop (sign-in.ts) and the signed-in page
 * (page-throughput.ts).
 */
import http from "node:http";
import { pairOf } from "../support/cookie-jar";
import { createTestMember } from "../support/test-members";
import type { RunningServer } from "./bench-support";

export interface PostResponse {
  status: number;
  setCookies: string[];
}

/** A form post as a browser on our own origin sends it, over a keep-alive connection. */
export function postForm(
  agent: http.Agent,
  url: string,
  fields: Record<string, string>,
  cookie: string,
): Promise<PostResponse> {
  const body = new URLSearchParams(fields).toString();
  const { origin } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
          origin,
          "sec-fetch-site": "same-origin",
          "accept-encoding": "gzip",
          ...(cookie ? { cookie } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, setCookies: response.headers["set-cookie"] ?? [] }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

export const sessionCookieOf = (response: PostResponse) =>
  response.setCookies.find((cookie) => cookie.startsWith("id_session=") && !/Max-Age=0/i.test(cookie));

/** A new member, created in the server's stand-in and signed in: the Cookie header of their browser. */
export async function signedInCookie(app: RunningServer, standInPort: number, name: string) {
  const member = await createTestMember(standInPort, name);
  const signIn = await postForm(new http.Agent(), `${app.origin}/auth/sign-in/`, { intent: "sign-in", ...member }, "");
  const session = sessionCookieOf(signIn);
  if (!session) throw new Error(`${name}'s sign-in answered ${signIn.status} without a session cookie`);
  return { cookie: pairOf(session), email: member.email };
}
