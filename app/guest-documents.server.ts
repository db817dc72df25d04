import { createHash } from "node:crypto";
import type { EntryContext, RouterContextProvider } from "react-router";
import { countGuestDocument } from "~/integrations/metrics.server";
import { peekMember } from "~/middleware/member-session.server";
import { type SectionId, routeId } from "~/routing/route-table";
import { LOCALES } from "~/i18n/locales";

/**
 * The public pages' documents as visitors who are not signed in see them, rendered once and reused: the home page,
 * the documents and the sign-in and sign-up pages are the same for every such visitor, and they are what a crowd
 * (a newsletter's link, a sibling service's campaign, a bot) asks for at once. Rendering is the largest part of a
 * page view's CPU (tests/bench/README.md, "Guest documents").
 *
 * A document is kept under its render's inputs: the URL and every route's loader data, which is all
 * React renders from (components read loader data, the location and the nonce; the loaders read the request). So a
 * document is reused only for a request that would have rendered the same bytes, whatever in the request led to
 * that data. The nonce differs per response: the document is kept cut at its nonce and joined with the new one.
 * Kept only for a page of the public section with no member signed in, so no member's page is ever held.
 */

/** Enough for every public page in both languages, with their query variants; each entry holds one document. */
const GUEST_DOCUMENT_CAPACITY = 100;

/** The public section's layouts, one per language: a guest document's matches include one. */
const PUBLIC_LAYOUTS = new Set(LOCALES.map((locale) => routeId(locale, "default" satisfies SectionId)));

/** A document cut at each occurrence of its nonce. */
type CutDocument = readonly Buffer[];

/** Loader data that JSON cannot stand for exactly (a Date, a Map, a class): such a page is rendered every time. */
class NotPlainData extends Error {}

/**
 * JSON of plain data only: a value JSON would turn into something else (a Date's string, a Map's `{}`) could let two
 * different inputs share a key, so it makes the page uncacheable instead.
 */
function plainJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, converted: unknown) {
    const original = this[key];
    if (typeof original === "object" && original !== null && !Array.isArray(original)) {
      const prototype = Object.getPrototypeOf(original) as unknown;
      if (prototype !== Object.prototype && prototype !== null) throw new NotPlainData();
    }
    if (typeof original === "function" || typeof original === "symbol" || typeof original === "bigint") {
      throw new NotPlainData();
    }
    return converted;
  });
}

/**
 * The key of the document `render` is about to make, or null when it is not a guest document: a member is signed
 * in, the page is not public, an action ran, the status is not 200 (a 404 for every mistyped path would only push
 * the pages people ask for out), or the loader data is not plain.
 */
export function guestDocumentKey(
  url: string,
  status: number,
  render: EntryContext,
  context: Readonly<RouterContextProvider>,
): string | null {
  const { loaderData, actionData, errors, matches } = render.staticHandlerContext;
  if (status !== 200 || actionData !== null || errors !== null || peekMember(context).member !== null) return null;
  if (!matches.some((match) => PUBLIC_LAYOUTS.has(match.route.id))) return null;
  try {
    return createHash("sha256").update(url).update("\n").update(plainJson(loaderData)).digest("base64");
  } catch (error) {
    if (error instanceof NotPlainData) return null;
    throw error;
  }
}

/** Kept documents, the least recently used dropped first past GUEST_DOCUMENT_CAPACITY. */
export class GuestDocuments {
  readonly #documents = new Map<string, CutDocument>();

  constructor(private readonly capacity = GUEST_DOCUMENT_CAPACITY) {}

  /** The document kept under `key`, with `nonce` in its place, or undefined. */
  take(key: string, nonce: string): Buffer | undefined {
    const cut = this.#documents.get(key);
    if (cut === undefined) return undefined;
    this.#documents.delete(key);
    this.#documents.set(key, cut);
    countGuestDocument("reused");
    const nonceBytes = Buffer.from(nonce);
    const pieces: Buffer[] = [cut[0]!];
    for (let index = 1; index < cut.length; index++) pieces.push(nonceBytes, cut[index]!);
    return Buffer.concat(pieces);
  }

  /** Keeps `html`, rendered with `nonce`, under `key`. */
  keep(key: string, html: Buffer, nonce: string): void {
    countGuestDocument("rendered");
    const nonceBytes = Buffer.from(nonce);
    const cut: Buffer[] = [];
    let start = 0;
    for (let at = html.indexOf(nonceBytes); at !== -1; at = html.indexOf(nonceBytes, start)) {
      cut.push(html.subarray(start, at));
      start = at + nonceBytes.length;
    }
    cut.push(html.subarray(start));
    this.#documents.delete(key);
    this.#documents.set(key, cut);
    if (this.#documents.size > this.capacity) this.#documents.delete(this.#documents.keys().next().value!);
  }
}
