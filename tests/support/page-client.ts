import { type StaffWithAuthenticator, nextAuthenticatorCode } from "./admin-members";
import { type CookieJar, cookieHeaderOf, withSetCookieLines } from "./cookie-jar";
import { type RawOutcome, type RawResponse, formUrlEncode, sendRawRequest } from "./raw-http";

/**
 * A browser with JavaScript off, over raw HTTP against a server started by startServerProcess: form posts with
 * the app's own Origin (APP_ORIGIN names localhost, the socket goes to 127.0.0.1), a cookie jar, and the dev
 * mailbox read as a developer reads it. For tests that need a signed-in session without Playwright.
 */
/** Mail is filed as the request that sent it completes; generous, for loaded machines. */
const MAILBOX_WAIT_MS = 30_000;

export class PageClient {
  readonly port: number;
  /** The origin the app believes it has (startServerProcess sets APP_ORIGIN to http://localhost:<port>). */
  readonly origin: string;

  /** `origin`: the server's APP_ORIGIN when it is not localhost on the server's port. */
  constructor(serverUrl: string, origin?: string) {
    this.port = Number(new URL(serverUrl).port);
    this.origin = origin ?? `http://localhost:${this.port}`;
  }

  get(path: string, cookies: CookieJar = new Map()): Promise<RawOutcome> {
    return sendRawRequest(this.port, { method: "GET", target: path, headers: this.headers(cookies) });
  }

  post(path: string, fields: [string, string][], cookies: CookieJar = new Map()): Promise<RawOutcome> {
    return sendRawRequest(this.port, {
      method: "POST",
      target: path,
      headers: [
        ...this.headers(cookies),
        ["Origin", this.origin],
        ["Content-Type", "application/x-www-form-urlencoded"],
      ],
      body: Buffer.from(formUrlEncode(fields)),
    });
  }

  /** Host and Cookie as a browser on APP_ORIGIN sends them. */
  headers(cookies: CookieJar): [string, string][] {
    const headers: [string, string][] = [["Host", new URL(this.origin).host]];
    if (cookies.size > 0) headers.push(["Cookie", cookieHeaderOf(cookies)]);
    return headers;
  }

  /**
   * Signs in through the real sign-in form. Returns the cookies a browser would then hold: the device key (the one
   * given, or a new one) and the session, or the held sign-in of the device-limit screen.
   */
  async signIn(member: { email: string; password: string }, cookies: CookieJar = new Map()) {
    const response = expectResponse(
      await this.post(
        "/auth/sign-in/",
        [
          ["intent", "sign-in"],
          ["email", member.email],
          ["password", member.password],
        ],
        cookies,
      ),
      "sign-in",
    );
    if (response.status !== 302) throw new Error(`Sign-in of ${member.email} answered ${response.status}`);
    return withSetCookies(cookies, response);
  }

  /**
   * Opens a staff session through the staff sign-in form (app/routes/default/admin-sign-in.tsx): the password, then
   * the authenticator's next unused code. The one way tests reach the staff pages over HTTP; returns the jar with
   * the staff session cookie added (a member session in `cookies` stays).
   */
  async openStaffSession(staff: StaffWithAuthenticator, cookies: CookieJar = new Map()) {
    const signIn = "/admin/sign-in/";
    const password = expectResponse(
      await this.post(
        signIn,
        [
          ["intent", "password"],
          ["email", staff.email],
          ["password", staff.password],
        ],
        cookies,
      ),
      "staff sign-in",
    );
    if (password.status !== 302) throw new Error(`Staff sign-in of ${staff.email} answered ${password.status}`);
    const challenged = withSetCookies(cookies, password);
    const code = expectResponse(
      await this.post(
        signIn,
        [
          ["intent", "code"],
          ["code", await nextAuthenticatorCode(staff)],
        ],
        challenged,
      ),
      "staff code step",
    );
    const opened = withSetCookies(challenged, code);
    if (code.status !== 302 || ![...opened.keys()].some((name) => name.endsWith("id_staff_session"))) {
      throw new Error(`Staff code step of ${staff.email} answered ${code.status}`);
    }
    return opened;
  }

  /** The newest mailbox entry to an address (kind "code": a stand-in code; "mail": a mail's text), polled briefly. */
  async latestMailboxEntry(email: string, kind: "code" | "mail", options: { after?: string; timeoutMs?: number } = {}) {
    const deadline = Date.now() + (options.timeoutMs ?? MAILBOX_WAIT_MS);
    for (;;) {
      const page = expectResponse(await this.get("/__dev/mailbox/"), "the dev mailbox").body.toString("utf8");
      const entry = page
        .split('<li class="mailbox-entry"')
        .slice(1)
        .find((candidate) => candidate.startsWith(` data-kind="${kind}"`) && candidate.includes(`>${email}<`));
      const text = entry ? decodeHtml(entry) : "";
      if (text && text !== options.after) return text;
      if (Date.now() > deadline) throw new Error(`No ${kind} for ${email} in the dev mailbox`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The code the stand-in sent last to an address. */
  async latestCode(email: string, after = ""): Promise<string> {
    let code = "";
    const deadline = Date.now() + MAILBOX_WAIT_MS;
    while (!code || code === after) {
      const entry = await this.latestMailboxEntry(email, "code");
      code = /<code class="mailbox-code">(\d+)<\/code>/.exec(entry)?.[1] ?? "";
      if (Date.now() > deadline) throw new Error(`No new code for ${email}`);
      if (!code || code === after) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return code;
  }
}

/** The jar after a raw answer: cookies set are added or replaced, cookies cleared removed. */
export function withSetCookies(cookies: CookieJar, response: RawResponse): CookieJar {
  return withSetCookieLines(cookies, response.headers.get("set-cookie") ?? []);
}

export function expectResponse(outcome: RawOutcome, what: string): RawResponse {
  if (outcome.kind !== "response") throw new Error(`${what}: ${outcome.error}`);
  return outcome.response;
}

function decodeHtml(html: string): string {
  return html
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'");
}
