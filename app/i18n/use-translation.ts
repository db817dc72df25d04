import type { TFunction } from "i18next";
import { useMemo } from "react";
import { useMatches } from "react-router";
import { DEFAULT_LOCALE, type Locale, isLocale } from "./locales";
import type { Resources } from "./resources";

/**
 * Components translate with this hook rather than react-i18next: i18next's browser runtime alone would take a large
 * share of the home page's JavaScript budget (docs/i18n.md). The server keeps i18next (i18n-middleware.server.ts);
 * each loader sends the namespaces its page needs as `translations` (translations.server.ts), and this hook looks keys
 * up in whatever the matched routes sent. The `t` it returns has i18next's own type, so a key missing from the
 * Japanese resources is still a compile error.
 */
export type Namespace = keyof Resources;
export type Translations = Partial<Record<Namespace, unknown>>;

const INTERPOLATION = /{{\s*(\w+)\s*}}/g;

/**
 * Texts already found, by the bundle they were found in. A page looks up the same keys on every view, and on the
 * server its bundles are the process's own resources (translations.server.ts), so after the first view a lookup is
 * one Map read instead of splitting the key and walking the tree on every view. Only texts
 * are kept, so a key that finds nothing (one made from a request's data, say) never grows the cache.
 */
const foundTexts = new WeakMap<object, Map<string, string>>();

function lookUp(bundle: unknown, path: string): string | undefined {
  if (bundle === null || typeof bundle !== "object") return undefined;
  let found = foundTexts.get(bundle);
  if (!found) {
    found = new Map();
    foundTexts.set(bundle, found);
  }
  const known = found.get(path);
  if (known !== undefined) return known;
  let node: unknown = bundle;
  for (const segment of path.split(".")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  if (typeof node !== "string") return undefined;
  found.set(path, node);
  return node;
}

/**
 * Namespaces as loaders send them (translations.server.ts: JSON text), parsed once per text: on the server the texts
 * are the process's own, so every view finds the same tree (and the lookups cached on it); in the browser a page's
 * texts arrive anew with each navigation to it.
 */
const parsedTexts = new Map<string, unknown>();

function bundleOf(sent: unknown): unknown {
  if (typeof sent !== "string") return sent;
  let bundle = parsedTexts.get(sent);
  if (bundle === undefined) {
    bundle = JSON.parse(sent) as unknown;
    parsedTexts.set(sent, bundle);
  }
  return bundle;
}

/**
 * Merges the `translations` and finds the `locale` in the loader data of every matched route. A namespace two routes
 * send parts of (the staff layout its menu, the page its own keys of "admin") is merged by its top-level keys.
 */
function collectTranslations(loaderData: unknown[]): { bundles: Translations; locale: Locale } {
  const bundles: Translations = {};
  let locale: Locale = DEFAULT_LOCALE;
  for (const data of loaderData) {
    if (data === null || typeof data !== "object") continue;
    const { translations, locale: routeLocale } = data as { translations?: Translations; locale?: unknown };
    for (const [namespace, sent] of Object.entries(translations ?? {}) as [Namespace, unknown][]) {
      const bundle = bundleOf(sent);
      const earlier = bundles[namespace];
      bundles[namespace] =
        earlier && typeof earlier === "object" && bundle && typeof bundle === "object"
          ? { ...earlier, ...bundle }
          : bundle;
    }
    if (isLocale(routeLocale)) locale = routeLocale;
  }
  return { bundles, locale };
}

/** `key` ("path" in the default namespace, or "namespace:path") as a namespace and a path. */
function splitKey(key: string, defaultNamespace: Namespace): { namespace: Namespace; path: string } {
  const separator = key.indexOf(":");
  return separator > 0
    ? { namespace: key.slice(0, separator) as Namespace, path: key.slice(separator + 1) }
    : { namespace: defaultNamespace, path: key };
}

/** The text at `key` with its `{{placeholders}}` filled in, or undefined when no loader sent it. */
function findText(
  bundles: Translations,
  defaultNamespace: Namespace,
  key: string,
  values: Record<string, unknown>,
): string | undefined {
  const { namespace, path } = splitKey(key, defaultNamespace);
  const found = lookUp(bundleOf(bundles[namespace]), path);
  if (found === undefined || !found.includes("{{")) return found;
  return found.replace(INTERPOLATION, (placeholder, name: string) =>
    name in values ? String(values[name]) : placeholder,
  );
}

/**
 * How a missing text is logged (console.error, in the browser and on the server alike), for the tests to find: the
 * end-to-end tests fail on any console error, and the integration tests' servers have their output checked after
 * every test (the session servers' helper in the tests' support folder).
 */
export const MISSING_TEXT_LOG = "Missing text:";

/** Missing texts already logged: once per key and process, so a page viewed often does not flood the log. */
const reportedMissingTexts = new Set<string>();

/**
 * The text at `key` from what the page's loaders sent. A key they did not send, unless the caller gave a
 * `defaultValue`, is a loader's mistake: it is logged (MISSING_TEXT_LOG) and shows as nothing, since its dotted name
 * means nothing to a member and a page must never fail over a text.
 */
export function translate(
  bundles: Translations,
  defaultNamespace: Namespace,
  key: string,
  values: Record<string, unknown> = {},
): string {
  const text = findText(bundles, defaultNamespace, key, values);
  if (text !== undefined) return text;
  // i18next's option for a key made from data, which may have no text: the caller's own fallback, no mistake.
  if (typeof values.defaultValue === "string") return values.defaultValue;
  // Logged as "namespace:path", which no loader's loadTranslations (app/i18n/translations.server.ts) sent.
  const id = key.indexOf(":") > 0 ? key : `${defaultNamespace}:${key}`;
  if (!reportedMissingTexts.has(id)) console.error(`${MISSING_TEXT_LOG} ${id}`);
  reportedMissingTexts.add(id);
  return "";
}

export function useTranslation<Ns extends Namespace = "common">(namespace?: Ns) {
  const matches = useMatches();
  const defaultNamespace = namespace ?? "common";
  return useMemo(() => {
    const { bundles, locale } = collectTranslations(matches.map((match) => match.loaderData));
    const t = (key: string, values?: Record<string, unknown>) => translate(bundles, defaultNamespace, key, values);
    /** For messages that arrive as data, texts or keys: a text, or a key no loader sent, is shown as it is. */
    const message = (text: string, values: Record<string, unknown> = {}) =>
      findText(bundles, defaultNamespace, text, values) ?? text;
    return { t: t as unknown as TFunction<Ns>, message, i18n: { language: locale } };
  }, [matches, defaultNamespace]);
}
