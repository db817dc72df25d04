/**
 * The new-password rule's estimator (password-strength.server.ts), on a thread of its own: zxcvbn-ts with its
 * dictionaries (common and breached passwords, English and Japanese words and names, in romaji). Those are some
 * 240,000 words, each a property of a large object; on the server's thread every full garbage collection would mark
 * them again while requests wait, whereas this thread's heap grows, and is collected, only as passwords are judged.
 * `npm run build:server` compiles it to build/http-server/password-estimator.js (vite.config.ts).
 */
import { parentPort } from "node:worker_threads";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary as commonDictionary } from "@zxcvbn-ts/language-common";
import { dictionary as englishDictionary } from "@zxcvbn-ts/language-en";
import { dictionary as japaneseDictionary } from "@zxcvbn-ts/language-ja";

/**
 * How much of a password is judged. The estimate's cost grows faster than the length (its l33t and sequence
 * search), and the characters after these can only add strength, so a longer password is judged by its start
 * (tests/bench/README.md has the figures).
 */
const JUDGED_LENGTH = 32;

/**
 * The l33t variants the estimate tries per password. The default (100) multiplies the cost of every call, while the
 * usual disguises ("P@ssw0rd") are found within the first few.
 */
const L33T_VARIANTS = 4;

/** One password to judge, with the words of its owner that count as guessable (none: judged as anyone's). */
export interface EstimateRequest {
  id: number;
  password: string;
  personalWords: string[];
}

export interface Estimate {
  /** zxcvbn's score, 0 to 4. */
  score: number;
  /** Whether the estimate found one of the personal words in it, also disguised ("t4r0"). */
  usesPersonalWords: boolean;
}

export type EstimateReply = { id: number; estimate: Estimate } | { id: number; failure: string };

// The Japanese package (3.x) names its lists without a language, as the English one did before 4.x.
const japaneseLists = Object.fromEntries(
  Object.entries(japaneseDictionary).map(([name, words]) => [`${name}-ja`, words]),
);
const zxcvbn = new ZxcvbnFactory({
  dictionary: { ...commonDictionary, ...englishDictionary, ...japaneseLists },
  graphs: adjacencyGraphs,
  maxLength: JUDGED_LENGTH,
  l33tMaxSubstitutions: L33T_VARIANTS,
});

function estimate({ password, personalWords }: EstimateRequest): Estimate {
  const result = zxcvbn.check(password, personalWords);
  return {
    score: result.score,
    usesPersonalWords: result.sequence.some(
      (match) => match.pattern === "dictionary" && match.dictionaryName === "userInputs",
    ),
  };
}

parentPort?.on("message", (request: EstimateRequest) => {
  let reply: EstimateReply;
  try {
    reply = { id: request.id, estimate: estimate(request) };
  } catch (error) {
    reply = { id: request.id, failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
