/**
 * The sign-up flow over HTTP against the production build (preview mode) and its Cognito stand-in: the flow
 * cookie says nothing about the address and cannot be forged or altered, new, confirmed and unconfirmed
 * addresses get the same answer at step 1, and the code mail is in the page's language.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { AdminGetUserCommand, ListUserPoolsCommand } from "@aws-sdk/client-cognito-identity-provider";
import { createCookie } from "react-router";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import en from "../../../locales/en/code-mail.json";
import ja from "../../../locales/ja/code-mail.json";
import { codeMailsTo } from "../../support/code-mails";
import { pairOf, setCookieNamed } from "../../support/cookie-jar";
import { STAND_IN_POOL_NAME } from "../../support/stand-ins/provision-cognito";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { postForm } from "../../support/session-http";
import { createTestMember } from "../../support/test-members";
import { makeTempDir } from "../../support/temp-dir";

/** The server's only session secret, written where the embedded stack reads it, so this test can sign cookies. */
const SESSION_SECRET = "sign-up-flow-test-secret-0123456789abcdef";
const FLOW_COOKIE = "id_sign_up";
const STEP_NAMES = { credentials: "メールアドレスとパスワード", code: "確認コード", account: "会員情報", done: "完了" };

const dataDir = makeTempDir("sign-up-flow");
let server: ServerProcess;
let origin: string;
const cognito = () =>
  createCognitoClient({
    region: "ap-northeast-1",
    endpoint: `http://127.0.0.1:${server.standInPort}`,
    userPoolId: "",
    clientId: "",
  });

beforeAll(async () => {
  writeFileSync(path.join(dataDir.dir, "session-secret"), SESSION_SECRET);
  server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "silent", DATA_DIR: dataDir.dir });
  origin = `http://localhost:${new URL(server.url).port}`;
}, 90_000);

afterAll(async () => {
  await server?.stop();
  dataDir.remove();
});

async function subOf(email: string): Promise<string> {
  const client = cognito();
  try {
    const pools = await client.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    const UserPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id;
    const user = await client.send(new AdminGetUserCommand({ UserPoolId, Username: email }));
    return user.UserAttributes?.find((attribute) => attribute.Name === "sub")?.Value ?? "";
  } finally {
    client.destroy();
  }
}

function postSignUp(fields: Record<string, string>, cookie = "", pathPrefix = "") {
  return postForm(`${origin}${pathPrefix}/auth/sign-up/`, fields, { cookie, headers: { Origin: origin } });
}

/** Step 1 on the Japanese page, or on the English one with `pathPrefix` "/en". */
const stepOne = (email: string, pathPrefix = "") =>
  postSignUp(
    {
      email,
      password: "another-long-password",
      agreeIdTerms: "on",
      agreeDataTerms: "on",
      agreePrivacy: "on",
    },
    "",
    pathPrefix,
  );

const getSignUp = (cookie: string) =>
  fetch(`${origin}/auth/sign-up/`, { redirect: "manual", headers: { Cookie: cookie } });

function flowCookieOf(response: Response): string {
  const setCookie = setCookieNamed(response, FLOW_COOKIE);
  if (!setCookie) throw new Error("no flow cookie");
  return pairOf(setCookie);
}

/** The step the page shows as current. */
async function currentStep(response: Response): Promise<string | undefined> {
  const html = await response.text();
  const current = /<li[^>]*aria-current="step"[^>]*>([^<]*)<\/li>/.exec(html)?.[1];
  return Object.entries(STEP_NAMES).find(([, label]) => label === current)?.[0];
}

/** Every string that base64, base64url or URI decoding makes of the value and of its dot-separated parts, repeatedly. */
function decodings(value: string, depth = 3): string[] {
  const found = new Set([value]);
  let frontier = [value];
  for (let round = 0; round < depth; round++) {
    const next: string[] = [];
    for (const text of frontier) {
      for (const part of [text, ...text.split(/[.]/)]) {
        const candidates = [
          Buffer.from(part, "base64").toString("latin1"),
          Buffer.from(part, "base64url").toString("latin1"),
          Buffer.from(part, "base64").toString("utf8"),
          (() => {
            try {
              return decodeURIComponent(part);
            } catch {
              return part;
            }
          })(),
        ];
        for (const candidate of candidates) {
          if (found.has(candidate)) continue;
          found.add(candidate);
          next.push(candidate);
        }
      }
    }
    frontier = next;
  }
  return [...found];
}

test("step 1 reads the same for a new, a confirmed and an unconfirmed address: status, page, cookie names and length", async () => {
  // Addresses of one length, so that only the address's history could make the cookies differ.
  const address = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const confirmed = (await createTestMember(server.standInPort, "flow-k1")).email;
  const unconfirmed = address("flow-k2");
  expect((await stepOne(unconfirmed)).status).toBe(302);
  const kinds = { new: address("flow-k3"), confirmed, unconfirmed };
  const results: Record<string, unknown>[] = [];
  for (const [kind, email] of Object.entries(kinds)) {
    const response = await stepOne(email);
    const flowCookie = flowCookieOf(response);
    const next = await getSignUp(flowCookie);
    const html = (await next.text()).replaceAll(email, "<EMAIL>").replace(/nonce="[^"]*"/g, 'nonce=""');
    results.push({
      kind,
      status: response.status,
      location: response.headers.get("Location"),
      cookieNames: response.headers
        .getSetCookie()
        .map((cookie) => cookie.slice(0, cookie.indexOf("=")))
        .sort(),
      // Percent-decoded: the URI encoding of base64's "+" and "/" varies the raw length at random, whatever the kind.
      cookieLength: decodeURIComponent(flowCookie).length,
      nextStatus: next.status,
      html,
    });
  }
  const [reference, ...others] = results;
  expect(reference).toMatchObject({ status: 302, location: "/auth/sign-up/", nextStatus: 200 });
  for (const other of others) expect({ ...other, kind: reference!.kind }).toEqual(reference);
});

test("the flow cookie holds neither the address nor the sub in any decodable form", async () => {
  const email = `flow-sealed-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const flowCookie = flowCookieOf(await stepOne(email));
  const sub = await subOf(email);
  expect(sub).toMatch(/^[0-9a-f-]{36}$/);
  const value = flowCookie.slice(flowCookie.indexOf("=") + 1);
  for (const decoded of decodings(value)) {
    for (const secret of [email, email.split("@")[0]!, sub, sub.slice(0, 8), '"sub"', '"email"', "code"]) {
      expect(decoded).not.toContain(secret);
    }
  }
});

test("a flow cookie signed with the server's own secret but not sealed by it is ignored", async () => {
  const email = (await createTestMember(server.standInPort, "flow-forged")).email;
  const forged = createCookie(FLOW_COOKIE, { secrets: [SESSION_SECRET], path: "/", httpOnly: true, sameSite: "lax" });
  const cookie = pairOf(await forged.serialize({ step: "account", email, sub: await subOf(email) }));
  expect(await currentStep(await getSignUp(cookie))).toBe("credentials");
});

test("a sealed flow cookie altered by one character is ignored, even when signed again", async () => {
  const email = `flow-tampered-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const flowCookie = flowCookieOf(await stepOne(email));
  expect(await currentStep(await getSignUp(flowCookie))).toBe("code");

  const cookie = createCookie(FLOW_COOKIE, { secrets: [SESSION_SECRET], path: "/", httpOnly: true, sameSite: "lax" });
  const sealed = (await cookie.parse(flowCookie)) as string;
  expect(typeof sealed).toBe("string");
  const at = sealed.length - 30;
  const altered = `${sealed.slice(0, at)}${sealed[at] === "A" ? "B" : "A"}${sealed.slice(at + 1)}`;
  const resigned = pairOf(await cookie.serialize(altered));
  expect(await currentStep(await getSignUp(resigned))).toBe("credentials");
});

test("the code mail is in the page's language: Japanese from /auth/sign-up/, English from /en/auth/sign-up/", async () => {
  const japanese = `code-ja-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  expect((await stepOne(japanese)).status).toBe(302);
  const [toJapanese] = await codeMailsTo(dataDir.dir, japanese);
  expect(toJapanese!.subject).toBe(ja.signUp.subject);
  expect(toJapanese!.text).toBe(ja.signUp.text.replace("{{code}}", toJapanese!.code!));
  expect(toJapanese!.code).toMatch(/^\d{6}$/);

  const english = `code-en-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  expect((await stepOne(english, "/en")).status).toBe(302);
  const [toEnglish] = await codeMailsTo(dataDir.dir, english);
  expect(toEnglish!.subject).toBe(en.signUp.subject);
  expect(toEnglish!.text).toBe(en.signUp.text.replace("{{code}}", toEnglish!.code!));
});

test("a code sent again comes in the language of the page that asked for it", async () => {
  const email = `code-resend-${crypto.randomUUID().slice(0, 8)}@example.jp`;
  const flowCookie = flowCookieOf(await stepOne(email));
  expect((await postSignUp({ intent: "resend" }, flowCookie, "/en")).status).toBe(302);
  const [resent, first] = await codeMailsTo(dataDir.dir, email, 2);
  expect(first!.subject).toBe(ja.signUp.subject);
  expect(resent!.subject).toBe(en.signUp.subject);
  expect(resent!.text).toBe(en.signUp.text.replace("{{code}}", resent!.code!));
  expect(resent!.code).not.toBe(first!.code);
});
