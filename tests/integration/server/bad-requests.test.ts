import net from "node:net";
import {
  InitiateAuthCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from "@aws-sdk/client-cognito-identity-provider";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createCognitoClient } from "~/integrations/cognito/cognito-client.server";
import { STAND_IN_CLIENT_NAME, STAND_IN_POOL_NAME } from "../../support/stand-ins/provision-cognito";
import { PAGE_BODY_LIMIT_BYTES } from "~/server/page-checks";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";
import { connectToStandIn } from "../../support/bearer-tokens";
import { cookieHeader } from "../../support/cookie-jar";
import { createApiStaff, staffTokensFor } from "../../support/staff-api-access";

/**
 * Requests an attacker, a fuzzer or an old client sends, against the production build: each gets
 * its exact 4xx (or the form's own message), never a 500, never a redirect to another site, and leaves one
 * structured log line per request, no error and no raw stack trace. Raw requests go over node:net where fetch would
 * fix them first (Host-less HTTP/1.0, dot segments, TRACE).
 */
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  server = await startServerProcess("preview", { NODE_ENV: "production", LOG_LEVEL: "info" });
  port = Number(new URL(server.url).port);
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

// ---- helpers -----------------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Sends bytes exactly as given and reads the answer until the server closes the connection. */
function rawRequest(request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const [statusLine = "", ...headerLines] = head.split("\r\n");
      const headers = new Map(
        headerLines.map((line) => [
          line.slice(0, line.indexOf(":")).toLowerCase(),
          line.slice(line.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
  });
}

const rawGet = (target: string) =>
  rawRequest(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);

/**
 * The log lines of one request (by its X-Request-Id), once its access line is out, and any line in the same stretch
 * of output that is not structured (a raw stack trace printed by something else).
 */
async function logOf(response: { headers: { get(name: string): string | null | undefined } }, since: number) {
  const requestId = response.headers.get("x-request-id");
  expect(requestId).toBeTruthy();
  for (let waited = 0; !server.stdout().slice(since).includes(`"requestId":"${requestId}","method"`); waited += 50) {
    if (waited > 10_000) throw new Error(`no access log line for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const lines = server.stdout().slice(since).split("\n").filter(Boolean);
  return {
    ownLines: lines
      .filter((line) => line.includes(requestId!))
      .map((line) => JSON.parse(line) as { level: number; msg: string }),
    unstructured: lines.filter((line) => !line.startsWith("{")),
  };
}

/** One request through `send`: its status, and a log without errors or stack traces. */
async function expectStatusAndCleanLog(send: () => Promise<RawResponse | Response>, status: number) {
  const since = server.stdout().length;
  const response = await send();
  const headers =
    response instanceof Response ? response.headers : { get: (name: string) => response.headers.get(name) ?? null };
  expect(response.status).toBe(status);
  const log = await logOf({ headers }, since);
  expect(log.unstructured).toEqual([]);
  expect(log.ownLines.filter((line) => line.level >= 50)).toEqual([]);
  return response;
}

const pageUrl = (path: string) => `${server.url}${path}`;

function postPage(path: string, body: BodyInit | undefined, contentType?: string, cookie = "") {
  return fetch(pageUrl(path), {
    method: "POST",
    redirect: "manual",
    headers: {
      "Accept-Language": "ja",
      ...(contentType ? { "Content-Type": contentType } : {}),
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body,
  });
}

/** Signs a new member in through the sign-in form: the Cookie header of the signed-in browser. */
async function signedInCookie(label: string, query = ""): Promise<{ cookie: string; location: string | null }> {
  const member = await createTestMember(server.standInPort, label);
  const response = await postPage(
    `/auth/sign-in/${query}`,
    new URLSearchParams({ intent: "sign-in", ...member }),
    "application/x-www-form-urlencoded",
  );
  expect(response.status).toBe(302);
  return { cookie: cookieHeader(response), location: response.headers.get("location") };
}

/** Where a Location leads from a page of ours. */
const followedFrom = (location: string | null | undefined) => new URL(location ?? "", `${server.url}/some/page/`);

// ---- item 2: no open redirects -------------------------------------------------------------------------------------

describe("redirects stay on our origin", () => {
  test.each([
    ["//evil.example", 301, "/evil.example/"],
    ["///evil.example", 301, "/evil.example/"],
    ["/\\evil.example", 301, "/evil.example/"],
    ["//evil.example/?locale=xx", 301, "/evil.example/"],
    ["/en//evil.example/?locale=ja", 302, "/evil.example/"],
  ])("GET %s answers %i to %s, a path of ours", async (target, status, path) => {
    const response = await expectStatusAndCleanLog(() => rawGet(target), status);
    const location = (response as RawResponse).headers.get("location");
    expect(location).toMatch(/^\/(?![/\\])/);
    expect(followedFrom(location).origin).toBe(server.url);
    expect(followedFrom(location).pathname).toBe(path);
  });

  test("sign-in with ?to=/.//evil.example sends the member to the default page, not to //evil.example", async () => {
    const { location } = await signedInCookie("dot-slash", `?to=${encodeURIComponent("/.//evil.example")}`);
    expect(location).toBe("/");
    // The same sign-in honours a return path that is ours.
    const own = await signedInCookie("own-path", `?to=${encodeURIComponent("/docs/terms-of-use/")}`);
    expect(own.location).toBe("/docs/terms-of-use/");
  });
});

// ---- item 3: bounded requests ------------------------------------------------------------------------------------

describe("a page path reaches its page however it is written", () => {
  // One path per first segment the pages have (the server gives each its own slice of the route table), in both
  // languages, and paths no route starts with.
  const pagePaths = [
    "/",
    "/auth/sign-in/",
    "/docs/api/",
    "/email-update/not-a-token/",
    "/newsletter/unsubscribe/not-a-token/",
    "/my/profile/",
    "/admin/",
    "/en/",
    "/en/auth/sign-up/",
    "/en/docs/terms-of-use/",
    "/en/my/devices/",
  ];
  const titleOf = async (response: Response) => /<title>([^<]*)<\/title>/.exec(await response.text())?.[1];
  const get = (path: string) => fetch(pageUrl(path), { redirect: "manual", headers: { "Accept-Language": "ja" } });
  /** The path with the first letter after its language prefix percent-encoded, as React Router decodes it. */
  const encodedFirstLetter = (path: string) => {
    const prefix = path.startsWith("/en/") ? "/en" : "";
    const rest = path.slice(prefix.length);
    return /^\/[a-z]/.test(rest) ? `${prefix}/%${rest.charCodeAt(1).toString(16)}${rest.slice(2)}` : path;
  };

  test.each(pagePaths)("%s in capitals and percent-encoded answers as it does as written", async (path) => {
    const expected = await get(path);
    const expectedTitle = await titleOf(expected);
    const variants = [path.toUpperCase(), encodedFirstLetter(path)].filter((variant) => variant !== path);
    for (const variant of variants) {
      const response = await get(variant);
      // A redirect's `to` names the path as written, so only where it leads is compared.
      const locationPath = (answer: Response) => answer.headers.get("location")?.split("?")[0] ?? null;
      expect({ variant, status: response.status, location: locationPath(response) }).toEqual({
        variant,
        status: expected.status,
        location: locationPath(expected),
      });
      expect(await titleOf(response)).toBe(expectedTitle);
    }
  });

  test.each(["/no-such-section/", "/auth/no-such-page/", "/en/no-such-section/", "/en/auth/no-such-page/"])(
    "%s is the 404 page of its language",
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain(path.startsWith("/en/") ? 'lang="en"' : 'lang="ja"');
    },
  );
});

describe("page request bodies are bounded", () => {
  const ONE_MB = 1024 * 1024;
  const form = (bytes: number) => `email=${"a".repeat(bytes - "email=".length)}`;

  test("a 1 MB form post gets 413, and the server answers normally afterwards", async () => {
    await expectStatusAndCleanLog(
      () => postPage("/auth/sign-in/", form(ONE_MB), "application/x-www-form-urlencoded"),
      413,
    );
    expect((await fetch(pageUrl("/auth/sign-in/"))).status).toBe(200);
  });

  test("a chunked 1 MB form post (no Content-Length) gets 413 too", async () => {
    const chunk = new TextEncoder().encode("a".repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= ONE_MB) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const send = () =>
      fetch(pageUrl("/auth/sign-in/"), {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body,
        duplex: "half",
      } as RequestInit);
    await expectStatusAndCleanLog(send, 413);
    expect((await fetch(pageUrl("/auth/sign-in/"))).status).toBe(200);
  });

  test("a form post just within the limit reaches the form, which answers with its own message", async () => {
    const response = await postPage("/auth/sign-in/", form(PAGE_BODY_LIMIT_BYTES), "application/x-www-form-urlencoded");
    expect(response.status).toBe(400);
    // Not toContain: the page echoes the 64 kB value, which a failure message would print whole.
    expect((await response.text()).includes("メールアドレスの形式で入力してください")).toBe(true);
  });
});

// ---- item 4: no 500 for bad input ----------------------------------------------------------------------------------

describe("bad page posts get a 4xx", () => {
  test.each([
    ["no body and no Content-Type", undefined, undefined, 415],
    ["JSON", '{"email":"a@example.jp"}', "application/json", 415],
    ["plain text", "email=a@example.jp", "text/plain", 415],
    ["XML", "<email/>", "application/xml", 415],
    ["broken multipart", "not multipart at all", "multipart/form-data; boundary=xyz", 400],
    ["multipart without a boundary", "--x\r\n", "multipart/form-data", 400],
  ])("%s: %s", async (_name, body, contentType, status) => {
    for (const path of ["/auth/sign-in/", "/auth/sign-up/", "/en/auth/forgot-password/", "/my/profile/edit/"]) {
      await expectStatusAndCleanLog(() => postPage(path, body, contentType), status);
    }
  });

  test("an empty urlencoded post is the form's own 400 message, in the member's language", async () => {
    const response = await postPage("/en/auth/sign-in/", "", "application/x-www-form-urlencoded");
    expect(response.status).toBe(400);
    // The field's own error list, in English (the page's data no longer carries every form text to match by chance).
    expect(await response.text()).toMatch(/-email-error"><li class="error-list__item">Please enter here<\/li>/);
  });

  test("a valid multipart post reaches the form", async () => {
    const body = new FormData();
    body.set("intent", "sign-in");
    body.set("email", "");
    const response = await postPage("/en/auth/sign-in/", body);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/-email-error"><li class="error-list__item">Please enter here<\/li>/);
  });

  test.each(["PUT", "PATCH", "DELETE", "TRACE"])("%s on a page gets 405 with Allow", async (method) => {
    const response = await expectStatusAndCleanLog(
      () =>
        rawRequest(
          `${method} /auth/sign-in/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        ),
      405,
    );
    expect((response as RawResponse).headers.get("allow")).toBe("GET, HEAD, POST");
  });

  test("a device id that is not a session id fails on /my/devices/ like an unknown device: back with the error toast", async () => {
    const { cookie } = await signedInCookie("devices");
    for (const device of ["not-a-uuid", "", "' OR 1=1 --", "00000000-0000-0000-0000-00000000000g"]) {
      const response = await expectStatusAndCleanLog(
        () =>
          postPage(
            "/my/devices/",
            new URLSearchParams({ intent: "deactivate", device }),
            "application/x-www-form-urlencoded",
            cookie,
          ),
        302,
      );
      expect((response as Response).headers.get("location")).toBe("/my/devices/");
    }
  });

  test("a NUL in a profile field is the form's own message in the member's language", async () => {
    const { cookie } = await signedInCookie("nul-profile");
    const fields = {
      familyName: "山田\u0000",
      givenName: "花子",
      birthYear: "1990",
      country: "JP",
      prefecture: "東京都",
      occupation: "architect",
      organization: "Example",
      preferredLanguage: "ja",
    };
    const response = await expectStatusAndCleanLog(
      () => postPage("/my/profile/edit/", new URLSearchParams(fields), "application/x-www-form-urlencoded", cookie),
      400,
    );
    expect(await (response as Response).text()).toContain("使用できない文字が含まれています");
  });

  test.each([["\u0000"], ["\ud800"]])(
    "%j in POST /api/user-registration is a 422 naming the field",
    async (character) => {
      const { email } = await createTestMember(server.standInPort, "api-unstorable");
      const accessToken = await accessTokenOf(email);
      const profile = {
        familyName: `Tanaka${character}`,
        givenName: "Hanako",
        birthYear: 1990,
        country: "JP",
        prefecture: "Tokyo",
        occupation: "architect",
        organization: "Tanaka Sekkei",
        preferredLanguage: "en",
        q2: ["content"],
        q3: ["web"],
      };
      const response = await expectStatusAndCleanLog(
        () =>
          fetch(`${server.url}/api/user-registration`, {
            method: "POST",
            headers: {
              Authorization: `Bearer ${accessToken}`,
              "Content-Type": "application/json",
              "Accept-Language": "en",
            },
            body: JSON.stringify(profile),
          }),
        422,
      );
      const envelope = (await (response as Response).json()) as {
        error: { code: string; fields: Record<string, string[]> };
      };
      expect(envelope.error.code).toBe("validation_failed");
      expect(envelope.error.fields).toEqual({ familyName: ["This contains characters that cannot be used"] });
    },
  );

  test("an HTTP/1.0 request without a Host header gets the page (its URL comes from APP_ORIGIN)", async () => {
    const response = await expectStatusAndCleanLog(() => rawRequest("GET /auth/sign-in/ HTTP/1.0\r\n\r\n"), 200);
    expect((response as RawResponse).body).toContain("<html");
  });

  test("a Host header that is no host gets the page too, never a 500", async () => {
    await expectStatusAndCleanLog(
      () => rawRequest("GET /auth/sign-in/ HTTP/1.1\r\nHost: evil.example:99999\r\nConnection: close\r\n\r\n"),
      200,
    );
  });

  test.each(["/api/../x", "/api/%2e%2e/x", "/api/%2E%2E/auth/sign-in/", "/api/./../x"])(
    "the raw path %s gets the API's JSON 404",
    async (target) => {
      const response = (await expectStatusAndCleanLog(() => rawGet(target), 404)) as RawResponse;
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: "not_found" } });
    },
  );

  test.each(["/%", "/%zz/", "/en/auth/%E0%A4%A/", "/assets/%E0%A4%A"])(
    "the malformed escape in %s is a 400, logged without a stack trace",
    async (target) => {
      await expectStatusAndCleanLog(() => rawGet(target), 400);
    },
  );

  test("a request target that is no path gets 400", async () => {
    await expectStatusAndCleanLog(() => rawGet("http://evil.example/auth/sign-in/"), 400);
  });
});

describe("API bodies of the wrong media type get 415 with the envelope", () => {
  const profile = JSON.stringify({ familyName: "Tanaka", givenName: "Hanako" });
  test.each([
    ["JSON sent as text/plain", profile, "text/plain"],
    ["a form post", "familyName=Tanaka", "application/x-www-form-urlencoded"],
    ["JSON without a Content-Type", profile, undefined],
    ["XML", "<familyName>Tanaka</familyName>", "application/xml"],
  ])("%s", async (_name, body, contentType) => {
    const { email } = await createTestMember(server.standInPort, "api-media-type");
    const accessToken = await accessTokenOf(email);
    const response = await expectStatusAndCleanLog(
      () =>
        fetch(`${server.url}/api/user-registration`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${accessToken}`,
            "Accept-Language": "en",
            ...(contentType ? { "Content-Type": contentType } : {}),
          },
          // fetch() labels a string body text/plain itself: a Blob without a type goes out with no Content-Type.
          body: contentType ? body : new Blob([body]),
        }),
      415,
    );
    const envelope = (await (response as Response).json()) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe("unsupported_media_type");
    expect(envelope.error.message).toMatch(/^The request body must be JSON \(Content-Type: application\/json\)/);
  });

  test("the CSV import endpoint takes text/csv only", async () => {
    const admin = await createApiStaff(server, "api-media-type");
    // The admin API's token: the staff app client's.
    const sdk = await connectToStandIn(server.standInPort);
    const { accessToken } = await staffTokensFor(sdk, admin).finally(() => sdk.destroy());
    const response = await expectStatusAndCleanLog(
      () =>
        fetch(`${server.url}/api/admin/csv-import/user-create?dryRun=true`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${accessToken}`,
            "Content-Type": "application/json",
            "Accept-Language": "en",
          },
          body: JSON.stringify({ email: "a@example.jp" }),
        }),
      415,
    );
    const envelope = (await (response as Response).json()) as { error: { code: string; message: string } };
    expect(envelope.error.code).toBe("unsupported_media_type");
    expect(envelope.error.message).toMatch(/CSV \(text\/csv\) for the CSV import$/);
  });
});

// ---- a member's access token, as a sibling service gets it -------------------------------------------------------

async function accessTokenOf(email: string): Promise<string> {
  const cognito = createCognitoClient({
    region: "ap-northeast-1",
    endpoint: `http://127.0.0.1:${server.standInPort}`,
    userPoolId: "",
    clientId: "",
  });
  try {
    const pools = await cognito.send(new ListUserPoolsCommand({ MaxResults: 60 }));
    const userPoolId = pools.UserPools?.find((pool) => pool.Name === STAND_IN_POOL_NAME)?.Id ?? "";
    const clients = await cognito.send(new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }));
    const clientId =
      clients.UserPoolClients?.find((client) => client.ClientName === STAND_IN_CLIENT_NAME)?.ClientId ?? "";
    const output = await cognito.send(
      new InitiateAuthCommand({
        ClientId: clientId,
        AuthFlow: "USER_PASSWORD_AUTH",
        AuthParameters: { USERNAME: email, PASSWORD: TEST_PASSWORD },
      }),
    );
    return output.AuthenticationResult?.AccessToken ?? "";
  } finally {
    cognito.destroy();
  }
}
