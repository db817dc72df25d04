import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DomainError } from "../domain-error.server";
import type { Estimate, EstimateReply, EstimateRequest } from "./password-estimator.worker";

/**
 * The least strength a new password needs, on zxcvbn's scale of 0 to 4: 2 means at least a million estimated
 * guesses. A random 8-character password (the spec's minimum) estimates at 10^8 guesses, just below score 3, so a
 * higher bar would refuse it; why 2 is enough here: app/domain/README.md#account.
 */
const MIN_PASSWORD_SCORE = 2;

/** Words shorter than this taken from the address or name would match inside unrelated words. */
const MIN_PERSONAL_WORD_LENGTH = 3;

/** What the member is known by, which a password must not be made of. */
export interface PasswordOwner {
  email: string;
  familyName?: string | null;
  givenName?: string | null;
}

/** Judges passwords on the estimator's thread (password-estimator.worker.ts). */
interface EstimatorThread {
  estimate(password: string, personalWords: string[]): Promise<Estimate>;
}

let thread: EstimatorThread | null = null;

/**
 * The estimator's thread: from its TypeScript source through tsx where this module runs from source (dev, tests;
 * an eval'd start, since a worker's own `--import` does not reach Node 20's loader), else the compiled copy in
 * build/http-server, found from the repository root as the server finds the rest of build/ (docs/deployment.md).
 */
function startEstimatorWorker(): Worker {
  // Not the process's own flags: a worker would run its `--import` preloads again (Node 22 and later), such as the
  // tests' and benchmarks' tests/support/exit-with-parent.ts, and the thread needs none of them.
  const execArgv: string[] = [];
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith(".ts")) return new Worker(path.resolve("build/http-server/password-estimator.js"), { execArgv });
  const source = pathToFileURL(path.join(path.dirname(here), "password-estimator.worker.ts")).href;
  const start = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`;
  return new Worker(start, { eval: true, execArgv });
}

/**
 * Starts the thread once per process and keeps it: it builds the dictionaries as it starts, so that the first new
 * password does not wait for them. It keeps the process alive only while a password is being judged, so a
 * command-line job ends when its work does. If it fails or ends, the passwords it was judging fail and the next one
 * starts it again.
 */
function estimatorThread(): EstimatorThread {
  if (thread) return thread;
  const worker = startEstimatorWorker();
  worker.unref();
  const waiting = new Map<number, { resolve(estimate: Estimate): void; reject(error: Error): void }>();
  let lastId = 0;
  // Set once the thread has failed or ended: a check that still holds this thread must not wait for it forever.
  let ended: Error | null = null;
  const started: EstimatorThread = {
    estimate(password, personalWords) {
      return new Promise((resolve, reject) => {
        if (ended) return reject(ended);
        const request: EstimateRequest = { id: ++lastId, password, personalWords };
        waiting.set(request.id, { resolve, reject });
        worker.ref();
        worker.postMessage(request);
      });
    },
  };
  const fail = (error: Error) => {
    ended ??= error;
    if (thread === started) thread = null;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  worker.on("message", (reply: EstimateReply) => {
    const answer = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if ("failure" in reply) answer?.reject(new Error(`The password estimate failed: ${reply.failure}`));
    else answer?.resolve(reply.estimate);
  });
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`The password-strength thread ended with code ${code}`)));
  thread = started;
  return started;
}

/**
 * Starts the estimator's thread now, so that it has its dictionaries before the first new password. The HTTP server
 * calls it through the build's entry module, the copy of this module the routes use (app/entry.server.tsx).
 */
export function preparePasswordStrength(): void {
  estimatorThread();
}

function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

/**
 * The words a password guesser who knows the member would try: the whole address, its local part and the runs of
 * letters or digits in it ("taro.yamada85" → "taro", "yamada", "85" is too short), the domain's names without the
 * top level ("example" of example.co.jp), and each name as typed (kanji, kana or romaji).
 */
export function personalWords(owner: PasswordOwner): string[] {
  const email = fold(owner.email);
  const at = email.lastIndexOf("@");
  const local = at === -1 ? email : email.slice(0, at);
  const domainLabels = (at === -1 ? "" : email.slice(at + 1)).split(".").slice(0, -1);
  const names = [owner.familyName, owner.givenName].filter((name): name is string => Boolean(name)).map(fold);
  const words = [email, local, ...(local.match(/\p{L}+|\p{N}+/gu) ?? []), ...domainLabels, ...names];
  return [...new Set(words.map((word) => word.trim()))].filter(
    (word) => [...word].length >= MIN_PERSONAL_WORD_LENGTH || names.includes(word),
  );
}

/**
 * Refuses a new password that is too easy to guess: "passwordTooCommon" when it is (or is close to) a common or
 * breached password, a word, a name, a date or a keyboard pattern, for anyone; "passwordFromPersonalDetails" when
 * what makes it weak is the member's own address or name. A password containing a personal word is also judged with
 * those words taken out, since whoever targets the member knows them: "Yamada.Taro1985" is as strong as ".1985".
 * For new passwords only (sign-up, reset, change, an invited member's first one); a legacy account's migration keeps
 * the password the member already has.
 */
export async function refuseWeakPassword(password: string, owner: PasswordOwner): Promise<void> {
  const estimator = estimatorThread();
  const words = personalWords(owner);
  const folded = fold(password);
  const found = words.filter((word) => folded.includes(word));
  const whole = await estimator.estimate(password, words);
  if (whole.score < MIN_PASSWORD_SCORE) {
    // The estimate also finds the personal words disguised ("t4r0"), which a plain search would not.
    const usesPersonalWords = found.length > 0 || whole.usesPersonalWords;
    // Personal only when that is what makes it weak: "password1234" is common, whoever's address holds "password".
    const weakForAnyone = !usesPersonalWords || (await estimator.estimate(password, [])).score < MIN_PASSWORD_SCORE;
    throw new DomainError(weakForAnyone ? "passwordTooCommon" : "passwordFromPersonalDetails");
  }
  if (found.length === 0) return;
  // Longest first, so that the address goes before its local part and the local part before its words.
  const rest = found.sort((a, b) => b.length - a.length).reduce((text, word) => text.replaceAll(word, ""), folded);
  if ((await estimator.estimate(rest, words)).score < MIN_PASSWORD_SCORE) {
    throw new DomainError("passwordFromPersonalDetails");
  }
}
