import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { API_ENDPOINTS } from "~/api/contract";
import { RATE_LIMIT_POLICIES } from "~/domain/limits/rate-limit.server";
import {
  COUNTRIES,
  OCCUPATIONS,
  Q1_OPTIONS,
  Q2_OPTIONS,
  Q3_OPTIONS,
  WITHDRAWAL_REASONS,
} from "~/domain/forms/form-choices";
import { type BearerTokens, type StandInSdk, bearerTokensFor, connectToStandIn } from "../../support/bearer-tokens";
import { cookieHeaderOf } from "../../support/cookie-jar";
import { PageClient, expectResponse, withSetCookies } from "../../support/page-client";
import {
  type RawOutcome,
  formUrlEncode,
  multipartEncode,
  sendRawBytes,
  serializeRequest,
  setCookiesOf,
} from "../../support/raw-http";
import { type ServerProcess, startServerProcess } from "../../support/server-process";
import { createApiStaff, renewedStaffTokens, staffTokensFor } from "../../support/staff-api-access";
import { TEST_PASSWORD, createTestMember } from "../../support/test-members";
import { type StaffWithAuthenticator, createNamedMember } from "../../support/admin-members";
import { inviteMember, latestTemporaryPassword } from "../../support/invited-members";
import { pageModules } from "../../support/route-modules";

/**
 * A fuzz of every page form action (posted as a browser with JavaScript off would, with the app's
 * Origin and a signed-in cookie where the route needs one) and every /api/* endpoint (with and without a valid
 * bearer token), against the production build in preview mode, loopback only. Each request is a valid one with one
 * mutation (MUTATORS), or one of the malformed raw requests (RAW_CASES). Any 5xx or broken connection is a failure;
 * all are collected, then reported once, one example per route and mutation, with the request and what the server
 * logged about it.
 *
 *   FUZZ_SEED=1234 npx vitest run tests/integration/server/fuzz.test.ts      replay a run (the seed is printed)
 *   FUZZ_SEED=random npx vitest run tests/integration/server/fuzz.test.ts    explore a sequence of its own (60 s)
 *   FUZZ_REQUESTS=3000 / FUZZ_BUDGET_S=300                            more requests / a longer exploration
 *
 * Request i is drawn from its own PRNG stream (seed, i), so a seed names the same requests whatever the timing.
 * The raw cases come first, each once, then every row of the table once, then draws weighted by row.
 * To keep the table current: a route or endpoint added to the app without a row here fails the first test.
 */

const EXPLORING = process.env.FUZZ_SEED === "random";
/**
 * The default run sends every one of these requests, however slow the machine, so what it covers is the same on
 * every run; sized so that a loaded 2-core machine gets through it, session set-ups included, well within the timeout.
 */
const REQUEST_COUNT = Number(process.env.FUZZ_REQUESTS ?? (EXPLORING ? 100_000 : 600));
/**
 * Exploring (or when set): after this long the fuzz stops drawing new requests. Never in the default run, where
 * a time limit would let the machine's speed decide which requests are sent.
 */
const BUDGET_MS =
  process.env.FUZZ_BUDGET_S !== undefined || EXPLORING ? Number(process.env.FUZZ_BUDGET_S ?? 60) * 1000 : Infinity;
/** Fixed unless asked otherwise: `npm test` sends the same requests on every run, so its verdict is the code's. */
const DEFAULT_SEED = 20_261_126;
const SEED = EXPLORING ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
/** Requests in flight at once: enough to overlap the stand-in's latency, few enough for two cores. */
const CONCURRENCY = 4;
/** A request still unanswered after this long counts as a hang (generous: the app's own upstream deadlines are 8 s). */
const NO_ANSWER_AFTER_MS = 60_000;
/** How much of a body or header a failure report shows. */
const SHOWN_CHARS = 300;

// ---- the PRNG --------------------------------------------------------------------------------------------------------

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  hex(length: number): string {
    return Array.from({ length }, () => this.int(16).toString(16)).join("");
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** Request i's own stream: independent of how many draws the requests before it made. */
const rngFor = (index: number) => new Rng(Math.imul(SEED ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35));

// ---- sessions: who a request is sent as ---------------------------------------------------------------------------

type SessionName =
  | "anonymous"
  | "member"
  | "pendingSignIn"
  | "signUpCode"
  | "signUpAccount"
  | "passwordReset"
  | "signOut"
  | "passwordEdit"
  | "withdrawal"
  | "emailChange"
  | "signInAlert"
  | "newsletter"
  | "firstSignIn"
  | "staff";
type BearerName = "none" | "apiMember" | "apiWithdrawal" | "apiAdmin" | "apiFeed";
/** The data service's credential for the event feed (SERVICE_FEED_TOKENS_DATA of the server below). */
const FEED_TOKEN = "fuzz-feed-token-".padEnd(40, "f");

interface Renewable {
  /** Bumped on renewal: answers to requests sent with an older generation cannot mark the new one stale. */
  generation: number;
  stale: boolean;
  renewing?: Promise<void>;
  failedSetups: number;
  lastSetupError?: string;
}

/**
 * A browser's cookies for one purpose. Routes that end what they use (sign-out, a password change or a
 * cancellation that succeeds, "back" from the device-limit screen) get a session of their own, renewed when an
 * answer changes its cookies, so the shared member session lasts the whole run.
 */
interface Session extends Renewable {
  cookies: Map<string, string>;
  member?: { email: string; password: string };
  /** Values the session's forms need, e.g. the e-mail change link's token. */
  extra: Record<string, string>;
}

/** A sibling service's tokens for one member; renewed when the API answers 401 to them. */
interface BearerSession extends Renewable {
  tokens: BearerTokens | null;
  member?: { email: string; password: string };
}

let server: ServerProcess;
let client: PageClient;
let sdk: StandInSdk;
const sessions = new Map<SessionName, Session>();
const bearers = new Map<BearerName, BearerSession>();
/** How often each session was set up: renewals are the costly part of a run. */
const renewals = new Map<string, number>();
/** Access tokens of cancelled members: what a sibling service may still hold. */
const staleAccessTokens: string[] = [];
/** Cookies of sessions that were renewed away: sent as a signed-out browser's leftovers. */
const staleCookieJars: Map<string, string>[] = [];

/** The staff lane's admin, with the authenticator whose codes each staff sign-in uses up. */
let fuzzStaff: StaffWithAuthenticator | undefined;
/** The admin API lane's staff member, with the authenticator app turned on through the security page. */
let fuzzApiAdmin: StaffWithAuthenticator | undefined;

const freshEmail = (rng: Rng) => `fuzz-${rng.hex(10)}@example.jp`;

async function newMember(label: string) {
  return createTestMember(server.standInPort, label);
}

/** How each session is (re)established, through the real pages as a member would. */
const SESSION_SETUP: Record<Exclude<SessionName, "anonymous">, (session: Session) => Promise<void>> = {
  member: async (session) => {
    session.member ??= await newMember("fuzz-member");
    session.cookies = await client.signIn(session.member, deviceOnly(session.cookies));
  },
  // An admin with a staff session (the staff sign-in, password and authenticator code): the staff pages' actions
  // get past the guard (on random subs, so no real member is touched).
  staff: async (session) => {
    fuzzStaff ??= await createApiStaff({ url: server.url, standInPort: server.standInPort }, "fuzz-staff");
    session.member = fuzzStaff;
    session.cookies = await client.openStaffSession(fuzzStaff, deviceOnly(session.cookies));
  },
  // The device-limit screen: DEVICE_LIMIT sign-ins on other devices, then one more on a new device.
  pendingSignIn: async (session) => {
    if (!session.member) {
      session.member = await newMember("fuzz-pending");
      for (let device = 0; device < DEVICE_LIMIT; device++) await client.signIn(session.member);
    }
    session.cookies = await client.signIn(session.member);
    if (![...session.cookies.keys()].some((name) => name.includes("pending"))) {
      throw new Error("The device-limit sign-in set no pending sign-in cookie");
    }
  },
  signUpCode: async (session) => {
    session.member = { email: `fuzz-signup-${crypto.randomUUID().slice(0, 8)}@example.jp`, password: TEST_PASSWORD };
    const response = expectResponse(
      await client.post("/auth/sign-up/", [
        ["intent", "credentials"],
        ["email", session.member.email],
        ["password", session.member.password],
        ["agreeIdTerms", "on"],
        ["agreeDataTerms", "on"],
        ["agreePrivacy", "on"],
      ]),
      "sign-up",
    );
    if (response.status !== 302) throw new Error(`Sign-up answered ${response.status}`);
    session.cookies = withSetCookies(new Map(), response);
    session.extra.code = await client.latestCode(session.member.email);
  },
  signUpAccount: async (session) => {
    await SESSION_SETUP.signUpCode(session);
    const response = expectResponse(
      await client.post(
        "/auth/sign-up/",
        [
          ["intent", "code"],
          ["code", session.extra.code!],
        ],
        session.cookies,
      ),
      "sign-up code",
    );
    if (response.status !== 302) throw new Error(`The sign-up code step answered ${response.status}`);
    session.cookies = withSetCookies(session.cookies, response);
  },
  passwordReset: async (session) => {
    session.member ??= await newMember("fuzz-reset");
    const response = expectResponse(
      await client.post("/auth/forgot-password/", [
        ["intent", "request"],
        ["email", session.member.email],
      ]),
      "forgot password",
    );
    session.cookies = withSetCookies(new Map(), response);
    session.extra.code = await client.latestCode(session.member.email).catch(() => "000000");
  },
  signOut: async (session) => {
    session.member = await newMember("fuzz-sign-out");
    session.cookies = await client.signIn(session.member);
  },
  passwordEdit: async (session) => {
    session.member = await newMember("fuzz-password");
    session.cookies = await client.signIn(session.member);
  },
  withdrawal: async (session) => {
    session.member = await newMember("fuzz-withdrawal");
    session.cookies = await client.signIn(session.member);
  },
  // An invited member's first sign-in, on its "choose your password" step: a new invitation each time, since a
  // chosen password ends the step.
  firstSignIn: async (session) => {
    const invited = await inviteMember(server.standInPort, "fuzz-invited");
    const mailbox = async () => expectResponse(await client.get("/__dev/mailbox/"), "the dev mailbox").body.toString();
    session.member = { email: invited.email, password: await latestTemporaryPassword(mailbox, invited.email) };
    const response = expectResponse(
      await client.post("/auth/sign-in/", [
        ["intent", "sign-in"],
        ["email", session.member.email],
        ["password", session.member.password],
      ]),
      "an invited member's sign-in",
    );
    if (response.status !== 302) throw new Error(`The invited member's sign-in answered ${response.status}`);
    session.cookies = withSetCookies(new Map(), response);
  },
  // Its own member: confirming the link changes the address, which would break the shared member's re-sign-in.
  emailChange: async (session) => {
    session.member ??= await newMember("fuzz-email-change");
    session.cookies = await client.signIn(session.member, deviceOnly(session.cookies));
    const newEmail = `fuzz-changed-${crypto.randomUUID().slice(0, 8)}@example.jp`;
    const response = expectResponse(
      await client.post("/my/email/edit/", [["email", newEmail]], session.cookies),
      "e-mail change",
    );
    if (response.status !== 302) throw new Error(`The e-mail change answered ${response.status}`);
    const mail = await client.latestMailboxEntry(newEmail, "mail");
    session.extra.token = /\/email-update\/([A-Za-z0-9_-]+)\//.exec(mail)?.[1] ?? "";
  },
  // A new member signed in from two browsers: the second one's alert mail carries the link (which ends this session).
  signInAlert: async (session) => {
    session.member = await newMember("fuzz-sign-in-alert");
    await client.signIn(session.member);
    session.cookies = await client.signIn(session.member);
    const mail = await client.latestMailboxEntry(session.member.email, "mail");
    session.extra.token = /\/sign-in-alert\/([A-Za-z0-9_-]+)\//.exec(mail)?.[1] ?? "";
  },
  // No cookies, as a mail provider's one-click post: a reader of the newsletter and their signed token, taken from the
  // staff's e-mail-address export as the sending system takes it.
  newsletter: async (session) => {
    const admin = await readyBearer("apiAdmin");
    const reader = await createNamedMember(server.standInPort, {
      email: `fuzz-newsletter-${crypto.randomUUID().slice(0, 8)}@example.jp`,
    });
    const asAdmin = (path: string, method: "GET" | "POST") =>
      fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${admin.tokens!.accessToken}` } });
    const refresh = await asAdmin(`/api/admin/users/${reader.sub}/refresh`, "POST");
    if (!refresh.ok) throw new Error(`The reader's directory refresh answered ${refresh.status}`);
    const list = await (await asAdmin("/api/admin/downloads/email-addresses?locale=ja", "GET")).text();
    session.extra.token = new RegExp(`/newsletter/unsubscribe/(${reader.sub}\\.[0-9a-f]{64})/`).exec(list)?.[1] ?? "";
    if (!session.extra.token) throw new Error("The e-mail-address export gave the reader no unsubscribe URL");
  },
};

const deviceOnly = (cookies: Map<string, string>) =>
  new Map([...cookies].filter(([name]) => name.includes("id_device")));

const BEARER_SETUP: Record<Exclude<BearerName, "none">, (bearer: BearerSession) => Promise<void>> = {
  apiMember: async (bearer) => {
    bearer.member ??= await newMember("fuzz-api");
    bearer.tokens = await bearerTokensFor(sdk, bearer.member.email, bearer.member.password);
  },
  // Cancelling succeeds with the right password: a new member each time it did.
  apiWithdrawal: async (bearer) => {
    if (bearer.tokens) staleAccessTokens.push(bearer.tokens.accessToken);
    bearer.member = await newMember("fuzz-api-withdrawal");
    bearer.tokens = await bearerTokensFor(sdk, bearer.member.email, bearer.member.password);
  },
  apiAdmin: async (bearer) => {
    fuzzApiAdmin ??= await createApiStaff(server, "fuzz-api-admin");
    bearer.member = fuzzApiAdmin;
    // The staff client's tokens, the only ones the admin API takes (5 minutes: a 401 renews them, as any lane's).
    bearer.tokens = bearer.tokens
      ? await renewedStaffTokens(sdk, fuzzApiAdmin, bearer.tokens)
      : await staffTokensFor(sdk, fuzzApiAdmin);
  },
  // A service's own token speaks for no member: the same string every time.
  apiFeed: async (bearer) => {
    bearer.tokens = { sub: "", accessToken: FEED_TOKEN, refreshToken: "" };
  },
};

async function readySession(name: SessionName): Promise<Session> {
  let session = sessions.get(name);
  if (!session) {
    session = { cookies: new Map(), generation: 0, stale: name !== "anonymous", failedSetups: 0, extra: {} };
    sessions.set(name, session);
  }
  if (name === "anonymous") return session;
  const ready = session;
  await renewIfStale(name, ready, async () => {
    if (ready.cookies.size > 0) staleCookieJars.push(new Map(ready.cookies));
    await SESSION_SETUP[name](ready);
    // The auth cookies only: a toast cookie changes with every answer and says nothing about the session.
    ready.cookies = new Map([...ready.cookies].filter(([cookie]) => cookie.includes("id_")));
  });
  return ready;
}

async function readyBearer(name: BearerName): Promise<BearerSession> {
  let bearer = bearers.get(name);
  if (!bearer) {
    bearer = { tokens: null, generation: 0, stale: name !== "none", failedSetups: 0 };
    bearers.set(name, bearer);
  }
  if (name === "none") return bearer;
  const ready = bearer;
  await renewIfStale(name, ready, () => BEARER_SETUP[name](ready));
  return ready;
}

/** After this many set-ups in a row fail, the session's routes are skipped for the rest of the run. */
const MAX_FAILED_SETUPS = 3;

/** One set-up at a time per session; a request whose session could not be set up is skipped (SetupFailure). */
async function renewIfStale(name: string, state: Renewable, setUp: () => Promise<void>) {
  if (!state.stale) return;
  if (state.failedSetups >= MAX_FAILED_SETUPS) throw new SetupFailure(name, state.lastSetupError ?? "");
  state.renewing ??= setUp()
    .then(
      () => {
        state.generation++;
        state.stale = false;
        state.failedSetups = 0;
        renewals.set(name, (renewals.get(name) ?? 0) + 1);
      },
      (error: unknown) => {
        state.failedSetups++;
        state.lastSetupError = String(error instanceof Error ? error.message : error).slice(0, 500);
      },
    )
    .finally(() => (state.renewing = undefined));
  await state.renewing;
  if (state.stale) throw new SetupFailure(name, state.lastSetupError ?? "");
}

/** A session the fuzz could not set up through the pages: reported on its own, the request skipped. */
class SetupFailure extends Error {
  constructor(
    readonly session: string,
    reason: string,
  ) {
    super(reason);
  }
}

// ---- the routes -------------------------------------------------------------------------------------------------------

const DEVICE_LIMIT = 3;

/** What a request is built from before it is mutated: fields are name/value pairs (a name may repeat). */
interface Ctx {
  rng: Rng;
  session: Session;
  bearer: BearerSession;
}

interface PageForm {
  kind: "page";
  /** Report name: the route, and the step or intent. */
  name: string;
  /** The route-table name (the first test checks every page with an action is here). */
  route: string;
  /** The Japanese path; the English one is the same under /en. */
  path: (ctx: Ctx) => string;
  /** An index route: its form posts to `?index` (React Router's rule; without it the post goes to the layout). */
  index?: boolean;
  sessions: SessionName[];
  /** A valid submission of the form, `intent` included where the form's button has one. */
  fields: (ctx: Ctx) => [string, string][];
  /** The intents the route's action knows, for the intent mutation. */
  intents?: string[];
  weight: number;
}

/** The intents of /my/security/'s passkey forms. */
const PASSKEY_FORM_INTENTS = ["passkey-options", "passkey-add", "passkey-rename", "passkey-delete"];

/** A browser's WebAuthn result as the passkey scripts post it, made up (so Cognito refuses it), or not JSON at all. */
function ceremonyResult(ctx: Ctx): string {
  if (ctx.rng.chance(0.2)) return "{not json";
  const id = ctx.rng.uuid().replaceAll("-", "");
  return JSON.stringify({
    id,
    rawId: id,
    type: "public-key",
    response: { clientDataJSON: "e30", attestationObject: "AA", authenticatorData: "AA", signature: "AA" },
    clientExtensionResults: {},
  });
}

interface ApiCall {
  kind: "api";
  name: string;
  method: "GET" | "POST" | "DELETE";
  /** The contract's path template ({id}, {token}), or a path outside it (the splat). */
  template: string;
  path: (ctx: Ctx) => string;
  bearer: BearerName;
  body?: (ctx: Ctx) => Record<string, unknown>;
  weight: number;
}

type Target = PageForm | ApiCall;

const profileFields = (rng: Rng): [string, string][] => [
  ["familyName", rng.pick(["山田", "Tanaka", "Ñúñez"])],
  ["givenName", rng.pick(["花子", "Hanako", "José"])],
  ["birthYear", String(1930 + rng.int(80))],
  ["country", rng.pick(COUNTRIES)],
  // Both prefecture controls, as a page without JavaScript posts them; the country decides which counts.
  ["prefecture", rng.pick(["東京都", "京都府", "Kyoto"])],
  ["region", rng.pick(["Île-de-France", "California", ""])],
  ["occupation", rng.pick(OCCUPATIONS)],
  ["organization", rng.pick(["新建築社", "Example Inc.", "個人"])],
  ["preferredLanguage", rng.pick(["ja", "en"])],
];

const questionnaire = (rng: Rng): [string, string][] => {
  const q2 = rng.pick(Q2_OPTIONS);
  const q3 = rng.pick(Q3_OPTIONS);
  return [
    ["q1", rng.pick(Q1_OPTIONS)],
    ["q2", q2],
    ...(q2 === "other" ? ([["q2Other", "雑誌の広告"]] as [string, string][]) : []),
    ["q3", q3],
    ...(q3 === "other" ? ([["q3Other", "a podcast"]] as [string, string][]) : []),
  ];
};

const withdrawalAnswers = (rng: Rng): [string, string][] => {
  const reason = rng.pick(WITHDRAWAL_REASONS);
  return [
    ["reason", reason],
    ...(reason === "other" || rng.chance(0.3) ? ([["detail", "使わなくなったため"]] as [string, string][]) : []),
    ["agreeDisclaimer", "on"],
  ];
};

const memberPassword = (ctx: Ctx) => ctx.session.member?.password ?? TEST_PASSWORD;
const sixDigits = (rng: Rng) => String(rng.int(1_000_000)).padStart(6, "0");
const newPassword = (rng: Rng) => `fuzz-${rng.hex(12)}`;

const PAGE_FORMS: PageForm[] = [
  {
    kind: "page",
    name: "home (index route)",
    route: "index",
    path: () => "/",
    index: true,
    sessions: ["anonymous", "member"],
    fields: () => [],
    weight: 1,
  },
  {
    kind: "page",
    name: "sign-in",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["anonymous", "anonymous", "member"],
    intents: ["sign-in", "continue", "deactivate", "back", "passkey-options", "passkey-autofill", "passkey-sign-in"],
    fields: (ctx) => [
      ["intent", "sign-in"],
      [
        "email",
        ctx.rng.chance(0.5) ? (sessions.get("member")?.member?.email ?? freshEmail(ctx.rng)) : freshEmail(ctx.rng),
      ],
      ["password", ctx.rng.chance(0.5) ? TEST_PASSWORD : newPassword(ctx.rng)],
    ],
    weight: 5,
  },
  {
    kind: "page",
    name: "sign-in: passkey challenge",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["anonymous"],
    intents: ["sign-in", "passkey-options", "passkey-autofill", "passkey-sign-in"],
    fields: (ctx) => [
      ["intent", "passkey-options"],
      ["password", ""],
      [
        "email",
        ctx.rng.chance(0.5) ? (sessions.get("member")?.member?.email ?? freshEmail(ctx.rng)) : freshEmail(ctx.rng),
      ],
    ],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-in: passkey autofill pick",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["anonymous"],
    intents: ["sign-in", "passkey-options", "passkey-autofill", "passkey-sign-in"],
    fields: (ctx) => [
      ["intent", "passkey-autofill"],
      ["credentialId", ctx.rng.pick(["AAAA", ctx.rng.uuid().replaceAll("-", ""), "not base64url!"])],
    ],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-in: passkey answer",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["anonymous"],
    intents: ["sign-in", "passkey-options", "passkey-autofill", "passkey-sign-in"],
    fields: (ctx) => [
      ["intent", "passkey-sign-in"],
      ["credential", ceremonyResult(ctx)],
    ],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-in device limit: continue",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["pendingSignIn"],
    intents: ["continue", "deactivate", "back"],
    fields: () => [["intent", "continue"]],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-in device limit: deactivate",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["pendingSignIn"],
    intents: ["continue", "deactivate", "back"],
    fields: (ctx) => [
      ["intent", "deactivate"],
      ["device", ctx.rng.uuid()],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "sign-in device limit: back",
    route: "auth-sign-in",
    path: () => "/auth/sign-in/",
    sessions: ["pendingSignIn"],
    intents: ["continue", "deactivate", "back"],
    fields: () => [["intent", "back"]],
    weight: 1,
  },
  {
    kind: "page",
    name: "sign-in: choose your password",
    route: "auth-new-password",
    path: () => "/auth/sign-in/new-password/",
    sessions: ["firstSignIn", "anonymous"],
    intents: ["choose-password"],
    fields: (ctx) => [
      ["intent", "choose-password"],
      ["password", newPassword(ctx.rng)],
    ],
    weight: 1,
  },
  {
    kind: "page",
    name: "staff sign-in: password, code, passkey, start over, sign-out",
    route: "admin-sign-in",
    path: (ctx) =>
      ctx.rng.pick(["/admin/sign-in/", "/admin/sign-in/?to=admin-users", "/en/admin/sign-in/?mode=confirm"]),
    // Not the staff lane: its sign-out would end the staff session, and each new one uses up an authenticator code.
    // Without the password step's cookie the passkey posts go back to the password.
    sessions: ["anonymous", "member"],
    intents: ["password", "code", "passkey-options", "passkey", "start-over", "sign-out"],
    fields: (ctx) =>
      ctx.rng.pick<[string, string][]>([
        [
          ["intent", "password"],
          ["email", freshEmail(ctx.rng)],
          ["password", memberPassword(ctx)],
        ],
        [
          ["intent", "code"],
          ["code", sixDigits(ctx.rng)],
        ],
        [["intent", "passkey-options"]],
        [
          ["intent", "passkey"],
          ["credential", ceremonyResult(ctx)],
        ],
        [["intent", "start-over"]],
        [["intent", "sign-out"]],
      ]),
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-in: 2-step code or recovery code",
    route: "auth-two-step",
    path: (ctx) => ctx.rng.pick(["/auth/sign-in/two-step/", "/auth/sign-in/two-step/?method=recovery-code"]),
    // No member here has 2-step verification on: without the step's cookie every post goes back to sign in.
    sessions: ["anonymous", "member"],
    intents: ["code", "recovery-code"],
    fields: (ctx) =>
      ctx.rng.chance(0.5)
        ? [
            ["intent", "code"],
            ["code", sixDigits(ctx.rng)],
          ]
        : [
            ["intent", "recovery-code"],
            ["recoveryCode", `${ctx.rng.hex(4)}-${ctx.rng.hex(4)}-${ctx.rng.hex(4)}-${ctx.rng.hex(4)}`],
            ["password", memberPassword(ctx)],
          ],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-up: credentials",
    route: "auth-sign-up",
    path: () => "/auth/sign-up/",
    sessions: ["anonymous"],
    intents: ["credentials", "code", "resend", "restart", "account"],
    fields: (ctx) => [
      ["intent", "credentials"],
      ["email", freshEmail(ctx.rng)],
      ["password", newPassword(ctx.rng)],
      ["agreeIdTerms", "on"],
      ["agreeDataTerms", "on"],
      ["agreePrivacy", "on"],
    ],
    weight: 4,
  },
  {
    kind: "page",
    name: "sign-up: code",
    route: "auth-sign-up",
    path: () => "/auth/sign-up/",
    sessions: ["signUpCode"],
    intents: ["credentials", "code", "resend", "restart", "account"],
    fields: (ctx) => [
      ["intent", "code"],
      ["code", ctx.rng.chance(0.2) ? (ctx.session.extra.code ?? "") : sixDigits(ctx.rng)],
    ],
    weight: 4,
  },
  {
    kind: "page",
    name: "sign-up: resend / restart",
    route: "auth-sign-up",
    path: () => "/auth/sign-up/",
    sessions: ["signUpCode"],
    intents: ["credentials", "code", "resend", "restart", "account"],
    fields: (ctx) => [
      ["intent", ctx.rng.pick(["resend", "restart"])],
      ["code", ""],
    ],
    weight: 2,
  },
  {
    kind: "page",
    name: "sign-up: account",
    route: "auth-sign-up",
    path: () => "/auth/sign-up/",
    sessions: ["signUpAccount"],
    intents: ["credentials", "code", "resend", "restart", "account"],
    fields: (ctx) => [["intent", "account"], ...profileFields(ctx.rng), ...questionnaire(ctx.rng)],
    weight: 6,
  },
  {
    kind: "page",
    name: "forgot password: request",
    route: "auth-forgot-password",
    path: () => "/auth/forgot-password/",
    sessions: ["anonymous"],
    intents: ["request", "confirm", "resend", "start-over"],
    fields: (ctx) => [
      ["intent", "request"],
      ["email", freshEmail(ctx.rng)],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "forgot password: confirm",
    route: "auth-forgot-password",
    path: () => "/auth/forgot-password/",
    sessions: ["passwordReset"],
    intents: ["request", "confirm", "resend", "start-over"],
    fields: (ctx) => [
      ["intent", "confirm"],
      ["code", ctx.rng.chance(0.1) ? (ctx.session.extra.code ?? "") : sixDigits(ctx.rng)],
      ["password", newPassword(ctx.rng)],
    ],
    weight: 4,
  },
  {
    kind: "page",
    name: "forgot password: resend / start over",
    route: "auth-forgot-password",
    path: () => "/auth/forgot-password/",
    sessions: ["passwordReset"],
    intents: ["request", "confirm", "resend", "start-over"],
    fields: (ctx) => [["intent", ctx.rng.pick(["resend", "start-over"])]],
    weight: 1,
  },
  {
    kind: "page",
    name: "sign-out",
    route: "auth-sign-out",
    path: () => "/auth/sign-out/",
    sessions: ["signOut", "anonymous"],
    fields: () => [],
    weight: 2,
  },
  {
    kind: "page",
    name: "my/profile/edit",
    route: "my-profile-edit",
    path: () => "/my/profile/edit/",
    sessions: ["member"],
    fields: (ctx) => [
      ...profileFields(ctx.rng),
      ...(ctx.rng.chance(0.5) ? [["receivesNewsletter", "on"] as [string, string]] : []),
    ],
    weight: 6,
  },
  {
    kind: "page",
    name: "my/email/edit",
    route: "my-email-edit",
    path: () => "/my/email/edit/",
    sessions: ["member"],
    fields: (ctx) => [["email", freshEmail(ctx.rng)]],
    weight: 4,
  },
  {
    kind: "page",
    name: "my/password/edit",
    route: "my-password-edit",
    path: () => "/my/password/edit/",
    sessions: ["passwordEdit"],
    fields: (ctx) => [
      ["currentPassword", ctx.rng.chance(0.7) ? memberPassword(ctx) : newPassword(ctx.rng)],
      ["newPassword", newPassword(ctx.rng)],
      // The authenticator app's code a member with 2-step verification gives; ignored for the others.
      ["code", ctx.rng.chance(0.5) ? sixDigits(ctx.rng) : ""],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/devices",
    route: "my-devices",
    path: () => "/my/devices/",
    sessions: ["member"],
    intents: ["deactivate"],
    fields: (ctx) => [
      ["intent", "deactivate"],
      ["device", ctx.rng.uuid()],
    ],
    weight: 4,
  },
  {
    kind: "page",
    name: "my/security",
    route: "my-security",
    path: () => "/my/security/",
    sessions: ["member"],
    intents: ["not-me", "sign-out-others", ...PASSKEY_FORM_INTENTS],
    fields: (ctx) => [
      ["intent", ctx.rng.pick(["not-me", "sign-out-others"])],
      ["device", ctx.rng.uuid()],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/security/authenticator",
    route: "my-security-authenticator",
    path: () => "/my/security/authenticator/",
    sessions: ["member", "anonymous"],
    intents: ["start", "confirm", "cancel", "new-codes", "turn-off"],
    fields: (ctx) => [
      ["intent", ctx.rng.pick(["start", "confirm", "cancel", "new-codes", "turn-off"])],
      ["code", sixDigits(ctx.rng)],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/security: passkeys",
    route: "my-security",
    path: () => "/my/security/",
    sessions: ["member", "anonymous"],
    intents: ["not-me", "sign-out-others", ...PASSKEY_FORM_INTENTS],
    fields: (ctx) => [
      ["intent", ctx.rng.pick(PASSKEY_FORM_INTENTS)],
      ["credential", ceremonyResult(ctx)],
      ["credentialId", ctx.rng.pick(["AAAA", ctx.rng.uuid(), "not base64url!"])],
      ["name", ctx.rng.pick(["仕事用のMac", "", "x".repeat(61)])],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/withdrawal: form",
    route: "my-withdrawal",
    path: () => "/my/withdrawal/",
    sessions: ["member"],
    intents: ["confirm", "back", "submit"],
    fields: (ctx) => [["intent", ctx.rng.pick(["confirm", "back"])], ...withdrawalAnswers(ctx.rng)],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/withdrawal: submit",
    route: "my-withdrawal",
    path: () => "/my/withdrawal/",
    sessions: ["withdrawal"],
    intents: ["confirm", "back", "submit"],
    fields: (ctx) => [
      ["intent", "submit"],
      ...withdrawalAnswers(ctx.rng),
      ["password", ctx.rng.chance(0.5) ? memberPassword(ctx) : newPassword(ctx.rng)],
    ],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/reauthentication",
    route: "my-reauthentication",
    path: (ctx) =>
      `/my/reauthentication/?to=${encodeURIComponent(ctx.rng.pick(["/my/email/edit/", "/my/data/", "//evil.example/"]))}`,
    sessions: ["member"],
    fields: (ctx) => [["password", ctx.rng.chance(0.7) ? memberPassword(ctx) : newPassword(ctx.rng)]],
    weight: 3,
  },
  {
    kind: "page",
    name: "my/data/download",
    route: "my-data-download",
    path: () => "/my/data/download/",
    sessions: ["member", "anonymous"],
    fields: () => [],
    weight: 2,
  },
  {
    kind: "page",
    name: "demo: session clock",
    route: "demo",
    path: () => "/demo/",
    // Not the shared member: a password time moved back would send its e-mail changes to the password step.
    sessions: ["passwordEdit", "anonymous"],
    fields: (ctx) => [["minutes", String(1 + ctx.rng.int(30))]],
    weight: 1,
  },
  {
    kind: "page",
    name: "admin/users/{sub}",
    route: "admin-user",
    path: (ctx) => `/admin/users/${ctx.rng.uuid()}/`,
    sessions: ["anonymous", "member", "staff"],
    intents: ["refresh", "sessions-end", "disable", "enable", "two-step-off", "review-email-change", "email-change"],
    fields: (ctx) =>
      ctx.rng.chance(0.5)
        ? [["intent", ctx.rng.pick(["refresh", "sessions-end", "disable", "enable", "two-step-off"])]]
        : [
            ["intent", ctx.rng.pick(["review-email-change", "email-change"])],
            ["email", freshEmail(ctx.rng)],
          ],
    weight: 3,
  },
  {
    // The CSV upload posts multipart with a file; as a urlencoded post its "file" is text (a 400). Start and
    // discard name random jobs (404s), so the fuzz never starts an import.
    kind: "page",
    name: "admin/csv-import",
    route: "admin-csv-import",
    path: () => "/admin/csv-import/",
    sessions: ["anonymous", "member", "staff"],
    intents: ["start", "discard"],
    fields: (ctx) =>
      ctx.rng.chance(0.5)
        ? [["file", "email,family_name\r\na@example.jp,山田\r\n"]]
        : [
            ["intent", ctx.rng.pick(["start", "discard"])],
            ["jobId", ctx.rng.uuid()],
          ],
    weight: 2,
  },
  {
    kind: "page",
    name: "admin/csv-import/{id}",
    route: "admin-csv-import-job",
    path: (ctx) => `/admin/csv-import/${ctx.rng.uuid()}/`,
    sessions: ["anonymous", "member", "staff"],
    intents: ["cancel"],
    fields: () => [["intent", "cancel"]],
    weight: 1,
  },
  {
    // Random delivery ids (404) and times; the fuzz server configures no sibling endpoint, so every service refuses.
    kind: "page",
    name: "admin/events",
    route: "admin-events",
    path: () => "/admin/events/",
    sessions: ["anonymous", "member", "staff"],
    intents: ["redeliver", "redeliver-since", "enable"],
    fields: (ctx) => {
      const service = ctx.rng.pick(["data", "compe", "online", "shop"]);
      const intent = ctx.rng.pick(["redeliver", "redeliver-since", "enable"]);
      if (intent === "redeliver") {
        return [
          ["intent", intent],
          ["service", service],
          ["eventId", ctx.rng.uuid()],
          ["channel", ctx.rng.pick(["webhook", "logout"])],
        ];
      }
      const time = `20${10 + ctx.rng.int(30)}-0${1 + ctx.rng.int(9)}-1${ctx.rng.int(9)}T0${ctx.rng.int(9)}:30`;
      return [
        ["intent", intent],
        ["service", service],
        [intent === "enable" ? "from" : "since", time],
      ];
    },
    weight: 2,
  },
  {
    kind: "page",
    name: "email-update/{token}",
    route: "email-update",
    // Sometimes without its token: the invalid-link page's own action.
    path: (ctx) =>
      ctx.rng.chance(0.1)
        ? "/email-update/"
        : `/email-update/${ctx.rng.chance(0.3) ? (sessions.get("emailChange")?.extra.token ?? "x") : ctx.rng.hex(43)}/`,
    sessions: ["emailChange", "anonymous"],
    fields: () => [],
    weight: 3,
  },
  {
    kind: "page",
    name: "sign-in-alert/{token}",
    route: "sign-in-alert",
    // Sometimes without its token, mostly another's or a made-up one: only the mailed one ends a session.
    path: (ctx) =>
      ctx.rng.chance(0.1)
        ? "/sign-in-alert/"
        : `/sign-in-alert/${ctx.rng.chance(0.3) ? (sessions.get("signInAlert")?.extra.token ?? "x") : ctx.rng.hex(43)}/`,
    sessions: ["signInAlert", "anonymous"],
    fields: () => [],
    weight: 3,
  },
  {
    kind: "page",
    name: "newsletter/unsubscribe/{token}",
    route: "newsletter-unsubscribe",
    // A reader's signed token, a random one, a signed one put on another sub, or none (the invalid-link page).
    path: (ctx) => {
      const token = sessions.get("newsletter")?.extra.token ?? "x";
      const signature = token.split(".")[1] ?? "";
      return ctx.rng.pick([
        `/newsletter/unsubscribe/${token}/`,
        `/newsletter/unsubscribe/${ctx.rng.uuid()}.${ctx.rng.hex(64)}/`,
        `/newsletter/unsubscribe/${ctx.rng.uuid()}.${signature}/`,
        "/newsletter/unsubscribe/",
      ]);
    },
    sessions: ["newsletter", "anonymous"],
    fields: () => [["List-Unsubscribe", "One-Click"]],
    weight: 2,
  },
  {
    kind: "page",
    name: "not-found page",
    route: "not-found",
    path: (ctx) => `/no-such-page-${ctx.rng.hex(4)}/`,
    sessions: ["anonymous"],
    fields: () => [["email", "a@example.jp"]],
    weight: 1,
  },
  {
    kind: "page",
    name: "dev toast page (preview only)",
    route: "rebranding-debugs-page",
    path: (ctx) => `/rebranding-debugs/${ctx.rng.pick(["toast", "toast", "i-2-2", "nope"])}/`,
    sessions: ["anonymous"],
    fields: (ctx) => [["kind", ctx.rng.pick(["success", "error", "info"])]],
    weight: 1,
  },
];

const DEVICE_KEYS = ["fuzz-device-a", "fuzz-device-b", "fuzz-device-c", "fuzz-device-d"];

const registration = (rng: Rng): Record<string, unknown> => {
  const fields = Object.fromEntries(profileFields(rng)) as Record<string, unknown>;
  const q2 = rng.pick(Q2_OPTIONS);
  const q3 = rng.pick(Q3_OPTIONS);
  return {
    ...fields,
    birthYear: Number(fields.birthYear),
    q1: rng.pick(Q1_OPTIONS),
    q2: [q2],
    ...(q2 === "other" ? { q2Other: "雑誌" } : {}),
    q3: [q3],
    ...(q3 === "other" ? { q3Other: "podcast" } : {}),
    referrer: rng.pick(["id", "data", "compe", "online", "shop", null]),
  };
};

/**
 * The sub an admin endpoint names: mostly no member's (404) or a malformed one (422); staff actions that would lock
 * the fuzz's own members out never name a real one. `self`: the admin's own sub may come (reads and the refresh).
 */
const staffTarget = (ctx: Ctx, self: boolean) =>
  self && ctx.rng.chance(0.5)
    ? (ctx.bearer.tokens?.sub ?? "")
    : ctx.rng.pick([ctx.rng.uuid(), ctx.rng.uuid(), "not-a-sub", "00000000-0000-0000-0000-000000000000"]);

/** A search of the member list, valid or not, in a query string (URLSearchParams encodes whatever it gets). */
const adminSearch = (rng: Rng) =>
  new URLSearchParams([
    ["q", rng.pick(["fuzz", "山田", "taro", "", "%", "a".repeat(400), rng.uuid()])],
    ["status", rng.pick(["active", "cancelled", "disabled", "unconfirmed", "", "sleeping"])],
    ["sort", rng.pick(["signed-up-desc", "email-asc", "name-asc", "random"])],
    ["limit", rng.pick(["1", "50", "100", "0", "101", "x"])],
    ...(rng.chance(0.3) ? [["after", rng.pick(["", "bm90LWEtY3Vyc29y", rng.hex(40)])] as [string, string]] : []),
    ...(rng.chance(0.2)
      ? [["signedUpFrom", rng.pick(["2024-01-01", "2024-13-01", "yesterday"])] as [string, string]]
      : []),
  ]).toString();

const API_CALLS: ApiCall[] = [
  {
    kind: "api",
    name: "GET /api/openapi.json",
    method: "GET",
    template: "/api/openapi.json",
    path: () => "/api/openapi.json",
    bearer: "none",
    weight: 1,
  },
  {
    kind: "api",
    name: "POST /api/user-availability",
    method: "POST",
    template: "/api/user-availability",
    path: () => "/api/user-availability",
    bearer: "apiMember",
    body: (ctx) => ({ email: freshEmail(ctx.rng) }),
    weight: 4,
  },
  {
    kind: "api",
    name: "POST /api/refresh-user",
    method: "POST",
    template: "/api/refresh-user",
    path: () => "/api/refresh-user",
    bearer: "apiMember",
    body: (ctx) => ({ userSub: ctx.rng.chance(0.8) ? (ctx.bearer.tokens?.sub ?? "") : ctx.rng.uuid() }),
    weight: 3,
  },
  {
    kind: "api",
    name: "POST /api/user-registration",
    method: "POST",
    template: "/api/user-registration",
    path: () => "/api/user-registration",
    bearer: "apiMember",
    body: (ctx) => registration(ctx.rng),
    weight: 6,
  },
  {
    kind: "api",
    name: "POST /api/email-updates",
    method: "POST",
    template: "/api/email-updates",
    path: () => "/api/email-updates",
    bearer: "apiMember",
    body: (ctx) => ({ email: freshEmail(ctx.rng) }),
    weight: 3,
  },
  {
    kind: "api",
    name: "POST /api/email-updates/{token}",
    method: "POST",
    template: "/api/email-updates/{token}",
    path: (ctx) => `/api/email-updates/${ctx.rng.hex(43)}`,
    bearer: "apiMember",
    weight: 2,
  },
  {
    kind: "api",
    name: "POST /api/withdrawal-reasons",
    method: "POST",
    template: "/api/withdrawal-reasons",
    path: () => "/api/withdrawal-reasons",
    bearer: "apiWithdrawal",
    body: (ctx) => {
      const reason = ctx.rng.pick(WITHDRAWAL_REASONS);
      return {
        reason,
        ...(reason === "other" ? { detail: "理由" } : {}),
        agreeDisclaimer: true,
        password: ctx.rng.chance(0.3) ? (ctx.bearer.member?.password ?? "") : newPassword(ctx.rng),
      };
    },
    weight: 3,
  },
  {
    kind: "api",
    name: "GET /api/user-devices",
    method: "GET",
    template: "/api/user-devices",
    path: () => "/api/user-devices",
    bearer: "apiMember",
    weight: 2,
  },
  {
    kind: "api",
    name: "POST /api/user-devices/{id}",
    method: "POST",
    template: "/api/user-devices/{id}",
    path: (ctx) => `/api/user-devices/${ctx.rng.pick(DEVICE_KEYS)}`,
    bearer: "apiMember",
    body: (ctx) => ({ refreshToken: ctx.rng.chance(0.8) ? (ctx.bearer.tokens?.refreshToken ?? "") : ctx.rng.hex(40) }),
    weight: 4,
  },
  {
    kind: "api",
    name: "DELETE /api/user-devices/{id}",
    method: "DELETE",
    template: "/api/user-devices/{id}",
    path: (ctx) => `/api/user-devices/${ctx.rng.pick(DEVICE_KEYS)}`,
    bearer: "apiMember",
    weight: 2,
  },
  {
    kind: "api",
    name: "DELETE /api/old-safari-device",
    method: "DELETE",
    template: "/api/old-safari-device",
    path: () => "/api/old-safari-device",
    bearer: "apiMember",
    weight: 2,
  },
  {
    kind: "api",
    name: "GET /api/events",
    method: "GET",
    template: "/api/events",
    path: (ctx) =>
      `/api/events?${new URLSearchParams([
        ["after", ctx.rng.pick(["", "0", "1", "-1", "01", "9".repeat(20), ctx.rng.uuid()])],
        ["limit", ctx.rng.pick(["", "1", "500", "0", "501", "1.5", "x"])],
      ]).toString()}`,
    bearer: "apiFeed",
    weight: 2,
  },
  {
    kind: "api",
    name: "GET /api/admin/users",
    method: "GET",
    template: "/api/admin/users",
    path: (ctx) => `/api/admin/users?${adminSearch(ctx.rng)}`,
    bearer: "apiAdmin",
    weight: 2,
  },
  {
    kind: "api",
    name: "GET /api/admin/users/count",
    method: "GET",
    template: "/api/admin/users/count",
    path: (ctx) => `/api/admin/users/count?${adminSearch(ctx.rng)}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/user-pool",
    method: "GET",
    template: "/api/admin/user-pool",
    path: () => "/api/admin/user-pool",
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/audit-events",
    method: "GET",
    template: "/api/admin/audit-events",
    path: (ctx) =>
      `/api/admin/audit-events?${new URLSearchParams([
        ["action", ctx.rng.pick(["user.refresh", "user.disable", "", "user.delete"])],
        ["actor", ctx.rng.pick(["", "staff@example.jp", ctx.rng.uuid(), "x".repeat(300)])],
        ["from", ctx.rng.pick(["", "2026-01-01", "2026-02-30"])],
        ["cursor", ctx.rng.pick(["", "1", "99999999999999999999", "abc"])],
        ["limit", ctx.rng.pick(["", "1", "200", "201", "-1"])],
      ]).toString()}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  // The CSV import: a JSON body read as a CSV file is never a clean one, so nothing is ever created here.
  {
    kind: "api",
    name: "POST /api/admin/csv-import/user-create",
    method: "POST",
    template: "/api/admin/csv-import/user-create",
    path: (ctx) =>
      `/api/admin/csv-import/user-create?${new URLSearchParams([
        ["dryRun", ctx.rng.pick(["true", "", "false", "yes"])],
        ["fileName", ctx.rng.pick(["", "members.csv", "x".repeat(300)])],
      ]).toString()}`,
    bearer: "apiAdmin",
    body: (ctx) => ({ email: freshEmail(ctx.rng) }),
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/csv-import/jobs/{id}",
    method: "GET",
    template: "/api/admin/csv-import/jobs/{id}",
    path: (ctx) => `/api/admin/csv-import/jobs/${ctx.rng.pick([ctx.rng.uuid(), "not-a-uuid"])}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "POST /api/admin/csv-import/jobs/{id}/cancel",
    method: "POST",
    template: "/api/admin/csv-import/jobs/{id}/cancel",
    path: (ctx) => `/api/admin/csv-import/jobs/${ctx.rng.pick([ctx.rng.uuid(), "not-a-uuid"])}/cancel`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/csv-import/jobs/{id}/failed-rows.csv",
    method: "GET",
    template: "/api/admin/csv-import/jobs/{id}/failed-rows.csv",
    path: (ctx) =>
      `/api/admin/csv-import/jobs/${ctx.rng.pick([ctx.rng.uuid(), "x"])}/failed-rows.csv?encoding=${ctx.rng.pick(["", "utf-8", "shift_jis", "latin1"])}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/users.csv",
    method: "GET",
    template: "/api/admin/users.csv",
    path: (ctx) =>
      `/api/admin/users.csv?${adminSearch(ctx.rng)}&${new URLSearchParams([
        ["page", ctx.rng.pick(["", "0", "3", "-1", "x", "99999999999"])],
        ["all", ctx.rng.pick(["", "1", "maybe"])],
        ["header", ctx.rng.pick(["", "0", "false", "2"])],
        ["encoding", ctx.rng.pick(["", "utf-8", "shift_jis", "latin1"])],
      ]).toString()}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/downloads/withdrawal-reasons",
    method: "GET",
    template: "/api/admin/downloads/withdrawal-reasons",
    path: (ctx) =>
      `/api/admin/downloads/withdrawal-reasons?${new URLSearchParams([
        ["locale", ctx.rng.pick(["", "ja", "en", "fr", "x".repeat(300)])],
        ["encoding", ctx.rng.pick(["", "utf-8", "shift_jis", "latin1"])],
      ]).toString()}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/downloads/email-addresses",
    method: "GET",
    template: "/api/admin/downloads/email-addresses",
    path: (ctx) =>
      `/api/admin/downloads/email-addresses?${new URLSearchParams([
        ["locale", ctx.rng.pick(["", "ja", "en", "fr"])],
        ["encoding", ctx.rng.pick(["", "utf-8", "shift_jis", "latin1"])],
      ]).toString()}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "GET /api/admin/users/{sub}",
    method: "GET",
    template: "/api/admin/users/{sub}",
    path: (ctx) => `/api/admin/users/${staffTarget(ctx, true)}`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "POST /api/admin/users/{sub}/refresh",
    method: "POST",
    template: "/api/admin/users/{sub}/refresh",
    path: (ctx) => `/api/admin/users/${staffTarget(ctx, true)}/refresh`,
    bearer: "apiAdmin",
    weight: 1,
  },
  {
    kind: "api",
    name: "POST /api/admin/email-updates/{sub}",
    method: "POST",
    template: "/api/admin/email-updates/{sub}",
    path: (ctx) => `/api/admin/email-updates/${staffTarget(ctx, false)}`,
    bearer: "apiAdmin",
    body: (ctx) => ({ email: freshEmail(ctx.rng) }),
    weight: 2,
  },
  ...(["sign-out", "disable", "enable", "two-step-verification/disable"] as const).map((verb): ApiCall => ({
    kind: "api",
    name: `POST /api/admin/users/{sub}/${verb}`,
    method: "POST",
    template: `/api/admin/users/{sub}/${verb}`,
    // Never the admin's own sub: signing it out or disabling it would refuse the fuzz's admin token.
    path: (ctx) => `/api/admin/users/${staffTarget(ctx, false)}/${verb}`,
    bearer: "apiAdmin",
    weight: 1,
  })),
  {
    kind: "api",
    name: "/api/* splat (no such endpoint)",
    method: "POST",
    template: "/api/{splat}",
    path: (ctx) => `/api/${ctx.rng.pick(["nope", "user-devices/a/b", "USER-DEVICES", "openapi.json/x"])}`,
    bearer: "apiMember",
    body: () => ({}),
    weight: 1,
  },
];

// ---- a request in the making, and the mutations -------------------------------------------------------------------

type Encoding = "urlencoded" | "multipart" | "json" | "none";

interface Draft {
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  pairs: [string, string][];
  json: unknown;
  encoding: Encoding;
  /** When set, sent as the body verbatim (with `contentType`, if any, already in the headers). */
  rawBody?: Buffer;
  /** Whether the request carries the session's own cookies or token unchanged (only then may it spend them). */
  intactCredentials: boolean;
}

interface Mutator {
  name: string;
  applies: "page" | "api" | "both";
  mutate(draft: Draft, rng: Rng, target: Target): void;
}

const HUGE_LENGTHS = [300, 5_000, 70_000, 300_000];
const LONE_SURROGATES = ["\ud800", "\udfff", "a\udc00b", "\ud83d"];
const RTL = ["\u202eabc\u202c", "مرحبا", "שלום עולם", "\u200f\u061c"];
const FULL_WIDTH = ["ｔｅｓｔ＠ｅｘａｍｐｌｅ．ｊｐ", "１９９０", "１２３４５６", "ＡＢＣ　ｄｅｆ", "ｊａ"];
const WRONG_TYPES_TEXT = [
  "-1",
  "0",
  "1e309",
  "NaN",
  "Infinity",
  "0x1F",
  "true",
  "null",
  "[]",
  "{}",
  "[object Object]",
  "1990.5",
  " 1990 ",
  "99999999999999999999999",
];
const WRONG_TYPES_JSON: unknown[] = [
  0,
  -1,
  1e308,
  true,
  false,
  null,
  [],
  {},
  ["a", "b"],
  { $ne: null },
  "",
  [[[]]],
  1.5,
];
const CONTROL = ["\r\n", "\t", "\x1b[31m", "\x7f", "\u0085", "\u2028", "line\nbreak"];
const TRICKY = [
  "'; DROP TABLE member_profiles;--",
  "<script>alert(1)</script>",
  "{{7*7}}",
  "${7*7}",
  "%s%n",
  "../../etc/passwd",
  "a\u0301\u0301\u0301",
  "\u200b\u200d\ufeff",
  "😀👨‍👩‍👧‍👦",
  "𠮷野家",
  "\ufffd",
  "\uffff",
];
const ODD_METHODS = ["PUT", "PATCH", "DELETE", "TRACE", "OPTIONS", "HEAD", "GET", "PROPFIND", "M-SEARCH"];
const FIELD_NAME_TRICKS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "email[]",
  "q2[0]",
  "a.b",
  "",
  "intent ",
  "Email",
  "password\u0000",
];

/** Every value the mutations put into a field, as text: JSON bodies get them as strings, forms as they are. */
function mutateValue(rng: Rng, kind: string, current: string): string {
  switch (kind) {
    case "empty-value":
      return rng.pick(["", " ", "\u3000"]);
    case "huge-value": {
      const length = rng.pick(HUGE_LENGTHS);
      return (current || "a").repeat(Math.ceil(length / Math.max(1, current.length))).slice(0, length);
    }
    case "nul-in-value":
      return rng.pick([`${current}\u0000`, `\u0000${current}`, "\u0000", current.replace(/.$/, "\u0000")]);
    case "lone-surrogate":
      return rng.pick([`${current}${rng.pick(LONE_SURROGATES)}`, rng.pick(LONE_SURROGATES)]);
    case "rtl-text":
      return rng.pick([`${rng.pick(RTL)}${current}`, rng.pick(RTL)]);
    case "full-width":
      return rng.pick(FULL_WIDTH);
    case "wrong-type":
      return rng.pick(WRONG_TYPES_TEXT);
    case "control-chars":
      return `${current}${rng.pick(CONTROL)}${current}`;
    default:
      return rng.pick(TRICKY);
  }
}

const VALUE_KINDS = [
  "empty-value",
  "huge-value",
  "nul-in-value",
  "lone-surrogate",
  "rtl-text",
  "full-width",
  "wrong-type",
  "control-chars",
  "tricky-text",
];

function valueMutator(kind: string): Mutator {
  return {
    name: kind,
    applies: "both",
    mutate(draft, rng) {
      if (draft.encoding === "json") {
        const body = draft.json as Record<string, unknown>;
        const keys = Object.keys(body);
        if (keys.length === 0) {
          draft.json = { value: mutateValue(rng, kind, "") };
          return;
        }
        const key = rng.pick(keys);
        if (kind === "wrong-type") body[key] = rng.pick(WRONG_TYPES_JSON);
        else if (Array.isArray(body[key]))
          body[key] = [mutateValue(rng, kind, String((body[key] as unknown[])[0] ?? ""))];
        else body[key] = mutateValue(rng, kind, String(body[key] ?? ""));
        return;
      }
      if (draft.pairs.length === 0) {
        draft.pairs.push(["value", mutateValue(rng, kind, "")]);
        return;
      }
      const index = rng.int(draft.pairs.length);
      const [name, value] = draft.pairs[index]!;
      draft.pairs[index] = [name, mutateValue(rng, kind, value)];
    },
  };
}

function randomBoundary(rng: Rng) {
  return `----fuzz${rng.hex(16)}`;
}

function setHeader(draft: Draft, name: string, value: string | null) {
  draft.headers = draft.headers.filter(([key]) => key.toLowerCase() !== name.toLowerCase());
  if (value !== null) draft.headers.push([name, value]);
}

const MUTATORS: Mutator[] = [
  { name: "valid", applies: "both", mutate: () => {} },
  ...VALUE_KINDS.map(valueMutator),
  {
    name: "duplicate-field",
    applies: "both",
    mutate(draft, rng) {
      if (draft.encoding === "json") {
        const text = JSON.stringify(draft.json);
        const body = draft.json as Record<string, unknown>;
        const key = rng.pick([...Object.keys(body), "email"]);
        draft.rawBody = Buffer.from(
          text.replace(/^\{/, `{${JSON.stringify(key)}:${JSON.stringify(rng.pick(TRICKY))},`),
        );
        return;
      }
      const [name] = draft.pairs.length > 0 ? rng.pick(draft.pairs) : ["intent"];
      draft.pairs.splice(rng.int(draft.pairs.length + 1), 0, [name, rng.pick(["", "other", ...TRICKY])]);
    },
  },
  {
    name: "missing-field",
    applies: "both",
    mutate(draft, rng) {
      if (draft.encoding === "json") {
        const body = draft.json as Record<string, unknown>;
        const keys = Object.keys(body);
        if (keys.length > 0) delete body[rng.pick(keys)];
        return;
      }
      if (draft.pairs.length > 0) draft.pairs.splice(rng.int(draft.pairs.length), 1);
    },
  },
  {
    name: "no-fields",
    applies: "both",
    mutate(draft) {
      draft.pairs = [];
      draft.json = {};
    },
  },
  {
    name: "unknown-fields",
    applies: "both",
    mutate(draft, rng) {
      const name = rng.pick(FIELD_NAME_TRICKS);
      if (draft.encoding === "json") {
        draft.rawBody = Buffer.from(
          JSON.stringify(draft.json).replace(/^\{/, `{${JSON.stringify(name)}:{"isAdmin":true,"sub":"x"},`),
        );
        return;
      }
      for (let count = 1 + rng.int(3); count > 0; count--)
        draft.pairs.push([rng.pick(FIELD_NAME_TRICKS), rng.pick(TRICKY)]);
    },
  },
  {
    name: "intent",
    applies: "page",
    mutate(draft, rng, target) {
      const intents = (target as PageForm).intents ?? ["submit"];
      draft.pairs = draft.pairs.filter(([name]) => name !== "intent");
      const choice = rng.int(4);
      if (choice === 0) return;
      if (choice === 1) draft.pairs.push(["intent", rng.pick([...intents, "", "INTENT", "sign-in ", "__proto__"])]);
      if (choice === 2) draft.pairs.push(["intent", rng.pick(intents)], ["intent", rng.pick(intents)]);
      if (choice === 3) draft.pairs.unshift(["intent", rng.pick(intents)]);
    },
  },
  {
    name: "multipart",
    applies: "page",
    mutate(draft) {
      draft.encoding = "multipart";
    },
  },
  {
    name: "broken-multipart",
    applies: "both",
    mutate(draft, rng) {
      const boundary = randomBoundary(rng);
      const { body } = multipartEncode(draft.pairs.length > 0 ? draft.pairs : [["a", "b"]], boundary);
      const variant = rng.int(7);
      const contentType = [
        "multipart/form-data",
        `multipart/form-data; boundary=${boundary}x`,
        `multipart/form-data; boundary=${boundary}`,
        `multipart/form-data; boundary=${boundary}`,
        `multipart/form-data; boundary=${boundary}`,
        `multipart/form-data; boundary="${"b".repeat(200)}"`,
        `multipart/form-data; boundary=${boundary}`,
      ][variant]!;
      const bodies = [
        body,
        body,
        body.subarray(0, Math.max(1, body.length - 10 - rng.int(20))),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nvalue\r\n--${boundary}--\r\n`),
        wire(
          `--${boundary}`,
          'Content-Disposition: form-data; name="email"; filename="a.txt"',
          "Content-Type: application/octet-stream",
          "",
          "\u0000\u0001binary",
          `--${boundary}--`,
          "",
        ),
        body,
        Buffer.from(`garbage before\r\n--${boundary}\r\nX: y\r\n\r\n--${boundary}\r\n`),
      ];
      draft.rawBody = bodies[variant]!;
      setHeader(draft, "Content-Type", contentType);
    },
  },
  {
    name: "wrong-content-type",
    applies: "both",
    mutate(draft, rng) {
      const fields = Object.fromEntries(draft.pairs);
      const variant = rng.int(6);
      if (variant === 0) {
        draft.rawBody = Buffer.from(JSON.stringify(draft.encoding === "json" ? draft.json : fields));
        setHeader(draft, "Content-Type", rng.pick(["application/json", "text/plain", "application/xml"]));
      } else if (variant === 1) {
        draft.rawBody = Buffer.from("just some text\n");
        setHeader(draft, "Content-Type", rng.pick(["text/plain", "text/html", "application/octet-stream"]));
      } else if (variant === 2) {
        draft.rawBody = Buffer.from(
          formUrlEncode(
            draft.pairs.length > 0 ? draft.pairs : Object.entries(draft.json as object).map(([k, v]) => [k, String(v)]),
          ),
        );
        setHeader(draft, "Content-Type", null);
      } else if (variant === 3) {
        draft.rawBody = Buffer.from(formUrlEncode(draft.pairs.length > 0 ? draft.pairs : [["email", "a@example.jp"]]));
        setHeader(
          draft,
          "Content-Type",
          draft.encoding === "json" ? "application/x-www-form-urlencoded" : "application/json",
        );
      } else if (variant === 4) {
        const type = rng.pick([
          "application/x-www-form-urlencoded; charset=shift_jis",
          "application/x-www-form-urlencoded; charset=utf-16",
          "application/json; charset=latin1",
          "application/x-www-form-urlencoded;;;",
          "APPLICATION/X-WWW-FORM-URLENCODED",
          "*/*",
          "multipart/mixed",
        ]);
        setHeader(draft, "Content-Type", type);
        draft.rawBody =
          draft.encoding === "json" ? Buffer.from(JSON.stringify(draft.json)) : Buffer.from(formUrlEncode(draft.pairs));
      } else {
        draft.rawBody = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0xe2, 0x82]);
      }
    },
  },
  {
    name: "bad-percent-encoding-body",
    applies: "page",
    mutate(draft, rng) {
      const encoded = formUrlEncode(draft.pairs);
      const junk = rng.pick(["%", "%zz", "%E3%81", "%C0%AF", "%ED%A0%80", "%%", "%u0041", "+%2", "&&&==&", "=%FF%FE"]);
      draft.rawBody = Buffer.from(
        `${encoded}${rng.chance(0.5) ? "&" : ""}${rng.pick(["email=", "intent=", "x="])}${junk}`,
      );
      setHeader(draft, "Content-Type", "application/x-www-form-urlencoded");
    },
  },
  {
    name: "empty-body",
    applies: "both",
    mutate(draft, rng) {
      draft.rawBody = Buffer.alloc(0);
      if (rng.chance(0.5)) setHeader(draft, "Content-Type", null);
    },
  },
  {
    name: "oversized-body",
    applies: "both",
    mutate(draft, rng) {
      const size = rng.pick([40_000, 100_000, 900_000]);
      if (draft.encoding === "json")
        draft.rawBody = Buffer.from(JSON.stringify({ ...(draft.json as object), padding: "x".repeat(size) }));
      else draft.rawBody = Buffer.from(`${formUrlEncode(draft.pairs)}&padding=${"x".repeat(size)}`);
    },
  },
  {
    name: "bad-json",
    applies: "api",
    mutate(draft, rng) {
      const text = JSON.stringify(draft.json);
      draft.rawBody = Buffer.from(
        rng.pick([
          text.slice(0, Math.max(1, text.length - 3)),
          `${text},`,
          text.replace(/"/g, "'"),
          `\ufeff${text}`,
          "{",
          "NaN",
          '{"email": undefined}',
          `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`,
          '{"__proto__": {"admin": true}}',
          "\u0000",
          `{"email":"\\ud800"}`,
          `{"email":"\\u0000"}`,
        ]),
      );
    },
  },
  {
    name: "non-object-json",
    applies: "api",
    mutate(draft, rng) {
      draft.rawBody = Buffer.from(
        rng.pick(["[]", "null", "1", '"text"', "true", "[{}]", JSON.stringify([draft.json])]),
      );
    },
  },
  {
    name: "odd-method",
    applies: "both",
    mutate(draft, rng) {
      draft.method = rng.pick(ODD_METHODS);
      if (draft.method === "OPTIONS" && rng.chance(0.5)) {
        draft.headers.push(["Access-Control-Request-Method", rng.pick(["POST", "PUT", "DELETE"])]);
        setHeader(draft, "Origin", rng.pick(["http://evil.example", "null", "http://data.localhost:5000"]));
      }
      if (rng.chance(0.3)) draft.rawBody = Buffer.alloc(0);
    },
  },
  {
    name: "long-url",
    applies: "both",
    mutate(draft, rng) {
      const length = rng.pick([2_000, 8_000, 15_000, 40_000]);
      if (rng.chance(0.5)) draft.query = `${draft.query ? `${draft.query}&` : "?"}q=${"a".repeat(length)}`;
      else draft.path = `${draft.path}${"x/".repeat(length / 2)}`;
    },
  },
  {
    name: "bad-percent-encoding-path",
    applies: "both",
    mutate(draft, rng) {
      const junk = rng.pick(["%", "%zz", "%E3%81", "%C0%AF", "%ED%A0%80", "%00", "%2F", "%2e%2e", "%5C", "%FF"]);
      const segments = draft.path.split("/");
      const at = 1 + rng.int(Math.max(1, segments.length - 1));
      segments.splice(at, 0, junk);
      draft.path = segments.join("/");
    },
  },
  {
    name: "path-variant",
    applies: "both",
    mutate(draft, rng) {
      const variant = rng.int(7);
      if (variant === 0) draft.path = draft.path.endsWith("/") ? draft.path.slice(0, -1) : `${draft.path}/`;
      if (variant === 1) draft.path = `/${draft.path}`;
      if (variant === 2) draft.path = draft.path.replace(/^\//, "/./");
      if (variant === 3) draft.path = draft.path.toUpperCase();
      if (variant === 4) draft.path = `${draft.path.replace(/\/$/, "")};jsessionid=1/`;
      if (variant === 5) draft.path = draft.path.replace(/\//g, rng.pick(["//", "\\"]));
      if (variant === 6) draft.path = `${draft.path}../../`;
    },
  },
  {
    name: "query-garbage",
    applies: "both",
    mutate(draft, rng) {
      draft.query = rng.pick([
        "?index",
        "?index&index",
        "?index=1",
        "?INDEX",
        "?_data=routes%2Fhome",
        "?to=//evil.example",
        "?to=%2F%2Fevil.example",
        "?to=/.//evil.example",
        `?to=${"a".repeat(3000)}`,
        "?to=%zz",
        "?to=%00",
        "?to=my-profile&to=my-profile",
        "?__proto__[x]=1",
        "?locale=xx",
        "?locale=en&locale=ja",
        "?&&&=",
        "?%",
        "?sent",
      ]);
    },
  },
  {
    name: "cookie",
    applies: "both",
    mutate(draft, rng) {
      const cookie = draft.headers.find(([name]) => name === "Cookie")?.[1] ?? "";
      const variant = rng.int(7);
      const next = [
        "",
        cookie.replace(/=([^;]{4})/g, "=$1x"),
        `${cookie}; ${"big=".concat("c".repeat(6000))}`,
        `${cookie}; ${cookie}`,
        rng.pick(["=;;=; ;", "id_session", "id_session=%zz", "id_session=\u00ff\u00fe", "id_sign_up=eyJ; id_device=a"]),
        staleCookieJars.length > 0 ? cookieHeaderOf(rng.pick(staleCookieJars)) : "id_session=expired",
        cookie.replace(/=([^;]*)/g, (_, value: string) => `=${value.split("").reverse().join("")}`),
      ][variant]!;
      setHeader(draft, "Cookie", next === "" ? null : next);
      draft.intactCredentials = false;
    },
  },
  {
    name: "bearer",
    applies: "api",
    mutate(draft, rng) {
      const token =
        draft.headers.find(([name]) => name === "Authorization")?.[1]?.replace(/^Bearer /, "") ?? "eyJ.eyJ.sig";
      const [header, payload] = token.split(".");
      const forgedNone = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${payload ?? ""}.`;
      const value = rng.pick([
        null,
        "Bearer",
        "Bearer ",
        `bearer ${token}`,
        `Basic ${Buffer.from("a:b").toString("base64")}`,
        `Bearer ${token.slice(0, -5)}`,
        `Bearer ${forgedNone}`,
        `Bearer ${header ?? ""}.${Buffer.from('{"sub":"x","token_use":"access"}').toString("base64url")}.${"A".repeat(43)}`,
        `Bearer ${"x".repeat(9000)}`,
        `Bearer ${token} ${token}`,
        "Bearer a.b.c",
        "Bearer %00",
        `Bearer ${staleAccessTokens.length > 0 ? rng.pick(staleAccessTokens) : "none.yet.cancelled"}`,
      ]);
      setHeader(draft, "Authorization", value);
      if (rng.chance(0.2) && value) draft.headers.push(["Authorization", value]);
      draft.intactCredentials = false;
    },
  },
  {
    name: "header",
    applies: "both",
    mutate(draft, rng) {
      const variant = rng.int(8);
      if (variant === 0)
        setHeader(
          draft,
          "Accept-Language",
          rng.pick(["", "*", "xx-YY;q=abc", "en;q=2,ja;q=-1", "a".repeat(5000), "ja,en;q=0.5,".repeat(200)]),
        );
      if (variant === 1) draft.headers.push(["X-Fuzz", "v".repeat(rng.pick([1000, 7000]))]);
      if (variant === 2) setHeader(draft, "Origin", rng.pick(["null", "http://evil.example", "", "http://localhost"]));
      if (variant === 3) {
        setHeader(draft, "Origin", null);
        draft.headers.push(["Sec-Fetch-Site", rng.pick(["same-origin", "none", "same-site", "cross-site", "garbage"])]);
      }
      if (variant === 4) draft.headers.push(["Content-Type", rng.pick(["text/plain", "application/json"])]);
      if (variant === 5)
        draft.headers.push([
          "X-Forwarded-For",
          rng.pick(["not-an-ip", "1.2.3.4, ::1", "", "999.999.1.1", "::ffff:127.0.0.1"]),
        ]);
      if (variant === 6) draft.headers.push(["Transfer-Encoding", "chunked"]);
      if (variant === 7) draft.headers.push(["Expect", "100-continue"]);
    },
  },
];

// ---- building and sending -----------------------------------------------------------------------------------------

interface Planned {
  index: number;
  target: string;
  mutation: string;
  bytes: Buffer;
  /** What a report shows of the request. */
  describe(): string;
  session?: { value: Session | BearerSession; generation: number; kind: "cookies" | "bearer"; intact: boolean };
}

async function plan(index: number): Promise<Planned> {
  const rng = rngFor(index);
  // The raw cases first, each once, so every run covers them; then a few more among the random requests.
  const sweepIndex = index - RAW_CASES_IN_USE.length;
  const inSweep = sweepIndex >= 0 && sweepIndex < TARGETS.length;
  if (RAW_CASES_IN_USE.length > 0 && (sweepIndex < 0 || (!inSweep && rng.chance(0.02)) || TARGETS.length === 0)) {
    const raw = sweepIndex < 0 ? RAW_CASES_IN_USE[index]! : rng.pick(RAW_CASES_IN_USE);
    const bytes = raw.bytes(client.port);
    return { index, target: "raw HTTP", mutation: raw.name, bytes, describe: () => showRequest(bytes) };
  }
  // Then every row once, so every run covers every route and endpoint; then draws weighted by row.
  const target = inSweep ? TARGETS[sweepIndex]! : pickWeighted(rng, TARGETS);
  const mutator = rng.pick(
    MUTATORS_IN_USE.filter((candidate) => candidate.applies === "both" || candidate.applies === target.kind),
  );
  const sessionName = target.kind === "page" ? rng.pick(target.sessions) : "anonymous";
  const session = await readySession(sessionName);
  const bearer = await readyBearer(target.kind === "api" ? target.bearer : "none");
  const ctx: Ctx = { rng, session, bearer };
  const draft = target.kind === "page" ? pageDraft(target, ctx) : apiDraft(target, ctx);
  mutator.mutate(draft, rng, target);
  const bytes = serializeDraft(draft, rng);
  return {
    index,
    target: target.name,
    mutation: mutator.name,
    bytes,
    describe: () => showRequest(bytes),
    session:
      target.kind === "page"
        ? { value: session, generation: session.generation, kind: "cookies", intact: draft.intactCredentials }
        : { value: bearer, generation: bearer.generation, kind: "bearer", intact: draft.intactCredentials },
  };
}

function pickWeighted<T extends { weight: number }>(rng: Rng, items: T[]): T {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let roll = rng.next() * total;
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  return items[items.length - 1]!;
}

function pageDraft(form: PageForm, ctx: Ctx): Draft {
  const english = ctx.rng.chance(0.3);
  const path = `${english ? "/en" : ""}${form.path(ctx)}`;
  const headers: [string, string][] = [
    ["Host", `localhost:${client.port}`],
    ["Origin", client.origin],
    ["Accept-Language", english ? "en" : "ja"],
    ["User-Agent", ctx.rng.pick(["Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "curl/8.0", "fuzz"])],
    // Multipart drafts get theirs, with the boundary, when serialized.
    ["Content-Type", "application/x-www-form-urlencoded"],
  ];
  if (ctx.session.cookies.size > 0) headers.push(["Cookie", cookieHeaderOf(ctx.session.cookies)]);
  return {
    method: "POST",
    path,
    query: form.index ? "?index" : "",
    headers,
    pairs: form.fields(ctx),
    json: {},
    encoding: ctx.rng.chance(0.15) ? "multipart" : "urlencoded",
    intactCredentials: true,
  };
}

function apiDraft(call: ApiCall, ctx: Ctx): Draft {
  const headers: [string, string][] = [
    ["Host", `localhost:${client.port}`],
    ["Accept-Language", ctx.rng.pick(["en", "ja", "fr"])],
  ];
  if (ctx.bearer.tokens) headers.push(["Authorization", `Bearer ${ctx.bearer.tokens.accessToken}`]);
  if (call.body) headers.push(["Content-Type", "application/json"]);
  return {
    method: call.method,
    path: call.path(ctx),
    query: "",
    headers,
    pairs: [],
    json: call.body ? call.body(ctx) : {},
    encoding: call.body ? "json" : "none",
    intactCredentials: true,
  };
}

function serializeDraft(draft: Draft, rng: Rng): Buffer {
  let body = draft.rawBody;
  if (!body) {
    if (draft.encoding === "urlencoded") {
      body = Buffer.from(formUrlEncode(draft.pairs));
    } else if (draft.encoding === "multipart") {
      const encoded = multipartEncode(draft.pairs, randomBoundary(rng));
      body = encoded.body;
      setHeader(draft, "Content-Type", `multipart/form-data; boundary=${encoded.boundary}`);
    } else if (draft.encoding === "json") {
      // JSON.stringify writes lone surrogates as \ud800 escapes and NUL as \u0000: both reach the server's parser.
      body = Buffer.from(JSON.stringify(draft.json));
    }
  }
  // Announced as chunked: always a complete chunked body, or the server would rightly wait for the rest.
  const chunked = draft.headers.some(([name, value]) => name === "Transfer-Encoding" && value === "chunked");
  if (chunked) {
    body =
      body && body.length > 0
        ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")])
        : Buffer.from("0\r\n\r\n");
  }
  const sendsBody =
    body !== undefined && (chunked || (draft.method !== "GET" && draft.method !== "HEAD") || body.length > 0);
  return serializeRequest({
    method: draft.method,
    target: `${draft.path}${draft.query}`,
    headers: draft.headers,
    body: sendsBody ? body : undefined,
  });
}

/** The request line and each header on a line of its own (long values cut), then the body. */
function showRequest(bytes: Buffer): string {
  const headEnd = bytes.indexOf("\r\n\r\n");
  const head = bytes.subarray(0, headEnd === -1 ? bytes.length : headEnd).toString("latin1");
  const lines = head
    .split("\r\n")
    .map((line) => (line.length > 160 ? `${line.slice(0, 160)}… (${line.length} chars)` : line));
  const body = headEnd === -1 ? Buffer.alloc(0) : bytes.subarray(headEnd + 4);
  return `\n      ${lines.join("\n      ")}\n      body (${body.length} bytes): ${showBytes(body)}`;
}

/** Bytes as a quoted string, non-printables escaped, cut after SHOWN_CHARS. */
function showBytes(bytes: Buffer): string {
  const text = JSON.stringify(bytes.subarray(0, SHOWN_CHARS).toString("utf8"));
  return bytes.length > SHOWN_CHARS ? `${text}… (${bytes.length} bytes)` : text;
}

/** The malformed HTTP that fetch() cannot send: written byte for byte. */
const RAW_CASES: { name: string; bytes: (port: number) => Buffer }[] = [
  { name: "HTTP/1.0 without Host (GET /)", bytes: () => Buffer.from("GET / HTTP/1.0\r\n\r\n") },
  {
    name: "HTTP/1.0 without Host (GET /auth/sign-in/)",
    bytes: () => Buffer.from("GET /auth/sign-in/ HTTP/1.0\r\n\r\n"),
  },
  {
    name: "HTTP/1.0 without Host (POST a form)",
    bytes: () =>
      wire(
        "POST /auth/sign-in/ HTTP/1.0",
        "Content-Type: application/x-www-form-urlencoded",
        "Content-Length: 7",
        "",
        "email=a",
      ),
  },
  { name: "HTTP/1.0 without Host (API)", bytes: () => Buffer.from("GET /api/user-devices HTTP/1.0\r\n\r\n") },
  { name: "raw /api/../x", bytes: (port) => get("/api/../x", port) },
  { name: "raw /api/%2e%2e/x", bytes: (port) => get("/api/%2e%2e/x", port) },
  { name: "raw /api/%2E%2E/%2e%2e/etc/passwd", bytes: (port) => get("/api/%2E%2E/%2e%2e/etc/passwd", port) },
  { name: "raw /api/./user-devices", bytes: (port) => get("/api/./user-devices", port) },
  { name: "raw /api/user-devices/..", bytes: (port) => get("/api/user-devices/..", port) },
  { name: "raw /auth/../my/profile/", bytes: (port) => get("/auth/../my/profile/", port) },
  { name: "bad percent-encoding in a page path", bytes: (port) => get("/auth/%zz/", port) },
  { name: "truncated UTF-8 in a page path", bytes: (port) => get("/%E3%81/", port) },
  { name: "bad percent-encoding in an API path", bytes: (port) => get("/api/user-devices/%zz", port) },
  { name: "bad percent-encoding in an API path (POST)", bytes: (port) => post("/api/user-devices/%E3%81", port) },
  { name: "bad percent-encoding in email-update token", bytes: (port) => post("/email-update/%zz%/", port, true) },
  { name: "lone % in the query", bytes: (port) => get("/auth/sign-in/?to=%", port) },
  { name: "absolute-form request target", bytes: (port) => get(`http://evil.example/auth/sign-in/`, port) },
  {
    name: "asterisk request target",
    bytes: (port) => Buffer.from(`OPTIONS * HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`),
  },
  { name: "HTTP/1.1 without Host", bytes: () => Buffer.from("GET / HTTP/1.1\r\nConnection: close\r\n\r\n") },
  {
    name: "two Host headers",
    bytes: (port) =>
      Buffer.from(`GET / HTTP/1.1\r\nHost: localhost:${port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
  },
  {
    name: "odd Host header",
    bytes: () => Buffer.from("GET /auth/sign-in/ HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n"),
  },
  {
    name: "Host with a bad port",
    bytes: () =>
      Buffer.from(
        "POST /auth/sign-out/ HTTP/1.1\r\nHost: localhost:abc\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      ),
  },
  { name: "backslash path", bytes: (port) => get("/\\evil.example/", port) },
  { name: "double-slash path", bytes: (port) => get("//evil.example", port) },
  {
    name: "TRACE on a page",
    bytes: (port) =>
      Buffer.from(`TRACE /auth/sign-in/ HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`),
  },
  {
    name: "TRACE on the API",
    bytes: (port) =>
      Buffer.from(`TRACE /api/user-devices HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`),
  },
  {
    name: "unknown method on a page",
    bytes: (port) =>
      Buffer.from(`FUZZ /auth/sign-in/ HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`),
  },
  {
    name: "a header line without a colon",
    bytes: (port) =>
      Buffer.from(`GET / HTTP/1.1\r\nHost: localhost:${port}\r\nno colon here\r\nConnection: close\r\n\r\n`),
  },
  {
    name: "non-ASCII bytes in the path",
    bytes: (port) =>
      Buffer.concat([
        Buffer.from("GET /auth/"),
        Buffer.from([0xe3, 0x81, 0x82, 0xff]),
        wire("/ HTTP/1.1", host(port), CLOSE, "", ""),
      ]),
  },
  {
    name: "chunked body with a bad chunk size",
    bytes: (port) =>
      wire(
        "POST /auth/sign-in/ HTTP/1.1",
        host(port),
        `Origin: http://localhost:${port}`,
        "Content-Type: application/x-www-form-urlencoded",
        "Transfer-Encoding: chunked",
        CLOSE,
        "",
        "zz",
        "email=a",
        "0",
        "",
        "",
      ),
  },
  {
    name: "Content-Length and chunked together",
    bytes: (port) =>
      wire(
        "POST /api/user-availability HTTP/1.1",
        host(port),
        "Content-Type: application/json",
        "Content-Length: 4",
        "Transfer-Encoding: chunked",
        CLOSE,
        "",
        "2",
        "{}",
        "0",
        "",
        "",
      ),
  },
  {
    name: "negative Content-Length",
    bytes: (port) =>
      Buffer.from(
        `POST /auth/sign-in/ HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n`,
      ),
  },
];

/** Request lines joined with CRLF: a blank line ends the head. */
const wire = (...lines: string[]) => Buffer.from(lines.join("\r\n"), "latin1");
const host = (port: number) => `Host: localhost:${port}`;
const CLOSE = "Connection: close";

function get(target: string, port: number): Buffer {
  return Buffer.from(`GET ${target} HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`);
}

function post(target: string, port: number, form = false): Buffer {
  const body = form ? "a=b" : "{}";
  const type = form ? "application/x-www-form-urlencoded" : "application/json";
  return Buffer.from(
    [
      `POST ${target} HTTP/1.1`,
      host(port),
      `Origin: http://localhost:${port}`,
      `Content-Type: ${type}`,
      `Content-Length: ${body.length}`,
      CLOSE,
      "",
      body,
    ].join("\r\n"),
  );
}

/**
 * FUZZ_TARGET and FUZZ_MUTATION narrow a run to the routes and mutations whose names contain them (e.g. while
 * fixing one finding: FUZZ_TARGET="my/devices" FUZZ_MUTATION=wrong-type). Raw cases count as target "raw HTTP".
 */
const onlyTarget = process.env.FUZZ_TARGET ?? "";
const onlyMutation = process.env.FUZZ_MUTATION ?? "";
const MUTATORS_IN_USE = MUTATORS.filter((mutator) => mutator.name.includes(onlyMutation));
const TARGETS: Target[] = [...PAGE_FORMS, ...API_CALLS].filter(
  (target) =>
    target.name.includes(onlyTarget) &&
    MUTATORS_IN_USE.some((mutator) => mutator.applies === "both" || mutator.applies === target.kind),
);
const RAW_CASES_IN_USE = "raw HTTP".includes(onlyTarget)
  ? RAW_CASES.filter((raw) => raw.name.includes(onlyMutation))
  : [];

// ---- results --------------------------------------------------------------------------------------------------------

interface Failure {
  key: string;
  count: number;
  first: { index: number; request: string; outcome: string; log: string[] };
}

/** After an answer: a session whose cookies (or token) the answer changed or refused is renewed before next use. */
function noteSessionEffects(planned: Planned, outcome: RawOutcome) {
  const used = planned.session;
  if (!used || !used.intact || outcome.kind !== "response") return;
  if (used.value.generation !== used.generation || used.value.stale) return;
  const response = outcome.response;
  if (used.kind === "bearer") {
    if (response.status === 401) used.value.stale = true;
    // A successful cancellation ended this member.
    if (planned.target === "POST /api/withdrawal-reasons" && response.status === 200) used.value.stale = true;
    return;
  }
  const session = used.value as Session;
  // Set or cleared: either way the session is no longer what the next request expects.
  if (
    setCookiesOf(response).some(([name, value]) => session.cookies.has(name) && session.cookies.get(name) !== value)
  ) {
    session.stale = true;
  }
}

function serverLogFor(planned: Planned, outcome: RawOutcome, startedAt: number, endedAt: number): string[] {
  const requestId = outcome.kind === "response" ? outcome.response.headers.get("x-request-id")?.[0] : undefined;
  const lines = server.stdout().split("\n");
  const related = lines.filter((line) => {
    if (requestId) return line.includes(requestId);
    // No answer, so no request id: errors logged while the request was in flight (others may be in flight too).
    const time = Number(/"time":(\d+)/.exec(line)?.[1] ?? 0);
    return /"level":(50|60)/.test(line) && time >= startedAt && time <= endedAt;
  });
  return related.slice(0, 4).map(summarizeLogLine);
}

function summarizeLogLine(line: string): string {
  try {
    const entry = JSON.parse(line) as {
      msg?: string;
      err?: { type?: string; message?: string; stack?: string };
      level?: number;
    };
    const frames = (entry.err?.stack ?? "")
      .split("\n")
      .map((frame) => frame.trim())
      .filter((frame) => frame.startsWith("at "));
    const error = entry.err
      ? `: ${entry.err.type ?? ""} ${(entry.err.message ?? "").replace(/\s+/g, " ").slice(0, 300)}`
      : "";
    return `[level ${entry.level}] ${entry.msg ?? ""}${error}${frames.length > 0 ? ` @ ${frames.slice(0, 3).join(" | ")}` : ""}`;
  } catch {
    return line.slice(0, 400);
  }
}

/** Counts one more of a kind of failure; the first of each kind keeps its example. */
function record(list: Map<string, Failure>, key: string, example: () => Failure["first"]) {
  const known = list.get(key);
  if (known) known.count++;
  else list.set(key, { key, count: 1, first: example() });
}

function formatFailures(list: Map<string, Failure>): string {
  return [...list.values()]
    .map(
      (failure) =>
        `\n● ${failure.key}: ${failure.count}× (first: request #${failure.first.index})\n` +
        `    ${failure.first.outcome}\n` +
        `    request: ${failure.first.request}\n` +
        (failure.first.log.length > 0
          ? failure.first.log.map((line) => `    server log: ${line}`).join("\n")
          : "    server log: (nothing with this request id)"),
    )
    .join("\n");
}

function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind === "socketError") return `no answer: ${outcome.error}`;
  const { status, body } = outcome.response;
  return `${status}, body: ${showBytes(body.subarray(0, 200))}`;
}

// ---- the tests -------------------------------------------------------------------------------------------------------

test("every page with an action and every API endpoint has a row in the fuzz table", () => {
  const pagesWithAction = [...pageModules()]
    .filter(([, file]) =>
      /export (async )?function action\b|export const action\b/.test(readFileSync(`app/${file}`, "utf8")),
    )
    .map(([name]) => name);
  expect(pagesWithAction.filter((name) => !PAGE_FORMS.some((form) => form.route === name))).toEqual([]);
  const endpoints = API_ENDPOINTS.map((endpoint) => `${endpoint.method.toUpperCase()} ${endpoint.path}`);
  expect(
    endpoints.filter((endpoint) => !API_CALLS.some((call) => `${call.method} ${call.template}` === endpoint)),
  ).toEqual([]);
});

describe("against the production build", () => {
  beforeAll(async () => {
    // Every rate limit raised, so the fuzz reaches the code behind them (a 429 that still comes is not a failure).
    const limits = Object.fromEntries(
      Object.keys(RATE_LIMIT_POLICIES).map((name) => [`RATE_LIMIT_${name}`, "1000000"]),
    );
    server = await startServerProcess("preview", {
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      DEVICE_LIMIT: String(DEVICE_LIMIT),
      SERVICE_FEED_TOKENS_DATA: FEED_TOKEN,
      ...limits,
    });
    client = new PageClient(server.url);
    sdk = await connectToStandIn(server.standInPort);
  }, 90_000);

  afterAll(async () => {
    sdk?.destroy();
    await server?.stop();
  });

  test(
    "a fixed, seeded sequence of mutated requests over every form action and API endpoint: no 5xx, no broken connection",
    async () => {
      console.log(
        `fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${REQUEST_COUNT} requests` +
          (BUDGET_MS === Infinity ? "" : ` or ${BUDGET_MS / 1000} s, whichever comes first`),
      );
      const failures = new Map<string, Failure>();
      /**
       * 503 is the app's deliberate "temporarily unavailable" answer when Cognito (here the stand-in) is slow or
       * failing: on a loaded machine the stand-in can pass the app's time-outs. Listed, never failed on, so the
       * test cannot flake on load; any other 5xx is a failure.
       */
      const unavailable = new Map<string, Failure>();
      /** Sessions whose set-up failed at least once (see below). */
      const setupTrouble = new Set<string>();
      const statusCounts = new Map<number | string, number>();
      /** FUZZ_VERBOSE=1 prints these: whether the requests get past validation into the code behind it. */
      const statusesByTarget = new Map<string, Map<number | string, number>>();
      /** Milliseconds per route, session set-up included: where the run's time goes, to keep its cost in check. */
      const timeByTarget = new Map<string, number>();
      const startedAt = Date.now();
      let next = 0;
      let sent = 0;
      let serverDied = false;

      async function worker() {
        while (next < REQUEST_COUNT && Date.now() - startedAt < BUDGET_MS && !serverDied) {
          const index = next++;
          const plannedAt = Date.now();
          let planned: Planned;
          try {
            planned = await plan(index);
          } catch (error) {
            if (!(error instanceof SetupFailure)) throw error;
            // A set-up the app refused is no 5xx: on a loaded machine a stand-in call can pass the app's time-out
            // and the SDK's retry of a SignUp that did succeed reads as "taken". Listed, and failed on below only
            // when the session could never be set up in the whole run (its routes would have gone unfuzzed).
            setupTrouble.add(error.session);
            record(unavailable, `setting up the "${error.session}" session through the pages`, () => ({
              index,
              request: "(set-up)",
              outcome: error.message,
              log: [],
            }));
            continue;
          }
          const sentAt = Date.now();
          const outcome = await sendRawBytes(client.port, planned.bytes, NO_ANSWER_AFTER_MS);
          sent++;
          timeByTarget.set(planned.target, (timeByTarget.get(planned.target) ?? 0) + Date.now() - plannedAt);
          const status = outcome.kind === "response" ? outcome.response.status : "socket error";
          statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
          const byTarget = statusesByTarget.get(planned.target) ?? new Map<number | string, number>();
          statusesByTarget.set(planned.target, byTarget.set(status, (byTarget.get(status) ?? 0) + 1));
          noteSessionEffects(planned, outcome);
          if (server.child.exitCode !== null) serverDied = true;
          if (outcome.kind === "response" && outcome.response.status < 500) continue;
          const list = outcome.kind === "response" && outcome.response.status === 503 ? unavailable : failures;
          const key = `${planned.target} · ${planned.mutation}`;
          // The server writes its log line as it answers; give the pipe a moment to deliver it.
          if (!list.has(key)) await new Promise((resolve) => setTimeout(resolve, 50));
          record(list, key, () => ({
            index,
            request: planned.describe(),
            outcome: describeOutcome(outcome),
            log: serverLogFor(planned, outcome, sentAt - 5, Date.now()),
          }));
        }
      }
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
      const statuses = [...statusCounts]
        .sort(([a], [b]) => String(a).localeCompare(String(b)))
        .map(([status, count]) => `${status}×${count}`);
      const slowest = [...timeByTarget]
        .sort(([, a], [, b]) => b - a)
        .slice(0, 5)
        .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`);
      const setUps = [...renewals].map(([name, count]) => `${name}×${count}`);
      console.log(`fuzz: ${sent} requests in ${seconds} s; statuses ${statuses.join(" ")}`);
      console.log(`fuzz: most time: ${slowest.join(", ")}; set-ups: ${setUps.join(" ")}`);
      if (process.env.FUZZ_VERBOSE) {
        for (const [name, counts] of statusesByTarget) {
          console.log(`  ${name}: ${[...counts].map(([status, count]) => `${status}×${count}`).join(" ")}`);
        }
      }
      if (serverDied) throw new Error(`The server exited during the fuzz:\n${server.stdout().slice(-4000)}`);
      // Only a session that could not be set up leaves a row unsent (listed with the set-ups below).
      const unsent = TARGETS.filter((target) => !statusesByTarget.has(target.name)).map((target) => target.name);
      if (unsent.length > 0) console.log(`fuzz: rows never sent (their session's set-up failed): ${unsent.join(", ")}`);
      if (unavailable.size > 0) {
        console.log(`fuzz: 503 answers and refused set-ups (not failures):${formatFailures(unavailable)}`);
      }
      for (const name of setupTrouble) {
        if (renewals.has(name)) continue;
        const key = `the "${name}" session could not be set up once in the whole run`;
        failures.set(key, { ...unavailable.get(`setting up the "${name}" session through the pages`)!, key });
      }
      if (failures.size > 0) {
        const report = formatFailures(failures);
        throw new Error(
          `${failures.size} kinds of request (route · mutation) got a 5xx or no answer; seed ${SEED} (FUZZ_SEED=${SEED} replays it):\n${report}`,
        );
      }
    },
    // A guard against a hang, not a budget: a second a request is far more than a loaded machine needs; slow
    // session set-ups and the last answers come on top.
    Math.min(BUDGET_MS, REQUEST_COUNT * 1_000) + 120_000,
  );
});
