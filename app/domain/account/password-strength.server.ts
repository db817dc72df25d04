import type { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { DomainError } from "../domain-error.server";

/**
 * The least strength a new password needs, on zxcvbn's scale of 0 to 4: 2 means at least a million estimated
 * guesses. A random 8-character password (the spec's minimum) estimates at 10^8 guesses, just below score 3, so a
 * higher bar would refuse it; why 2 is enough here: app/domain/README.md#account.
 */
const MIN_PASSWORD_SCORE = 2;

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

/** Words shorter than this taken from the address or name would match inside unrelated words. */
const MIN_PERSONAL_WORD_LENGTH = 3;

/** What the member is known by, which a password must not be made of. */
export interface PasswordOwner {
  email: string;
  familyName?: string | null;
  givenName?: string | null;
}

let estimator: Promise<ZxcvbnFactory> | null = null;

/**
 * The estimator with its dictionaries (common passwords, English and Japanese words and names, in romaji), built on
 * the first new password a process sees and kept: they are large, and a process that never checks a password (a
 * command-line job, a server that only serves pages) should not pay for them at start.
 */
function loadEstimator(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, common, english, japanese] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
      import("@zxcvbn-ts/language-en"),
      import("@zxcvbn-ts/language-ja"),
    ]);
    // The Japanese package (3.x) names its lists without a language, as the English one did before 4.x.
    const japaneseLists = Object.fromEntries(
      Object.entries(japanese.dictionary).map(([name, words]) => [`${name}-ja`, words]),
    );
    return new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...english.dictionary, ...japaneseLists },
      graphs: common.adjacencyGraphs,
      maxLength: JUDGED_LENGTH,
      l33tMaxSubstitutions: L33T_VARIANTS,
    });
  })();
  estimator.catch(() => {
    estimator = null;
  });
  return estimator;
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
  const zxcvbn = await loadEstimator();
  const words = personalWords(owner);
  const folded = fold(password);
  const found = words.filter((word) => folded.includes(word));
  const whole = zxcvbn.check(password, words);
  if (whole.score < MIN_PASSWORD_SCORE) {
    // The estimate also finds the personal words disguised ("t4r0"), which a plain search would not.
    const usesPersonalWords =
      found.length > 0 ||
      whole.sequence.some((match) => match.pattern === "dictionary" && match.dictionaryName === "userInputs");
    // Personal only when that is what makes it weak: "password1234" is common, whoever's address holds "password".
    const weakForAnyone = !usesPersonalWords || zxcvbn.check(password).score < MIN_PASSWORD_SCORE;
    throw new DomainError(weakForAnyone ? "passwordTooCommon" : "passwordFromPersonalDetails");
  }
  if (found.length === 0) return;
  // Longest first, so that the address goes before its local part and the local part before its words.
  const rest = found.sort((a, b) => b.length - a.length).reduce((text, word) => text.replaceAll(word, ""), folded);
  if (zxcvbn.check(rest, words).score < MIN_PASSWORD_SCORE) throw new DomainError("passwordFromPersonalDetails");
}
