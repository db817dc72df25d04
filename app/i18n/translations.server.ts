import type { RouterContextProvider } from "react-router";
import { getInstance, getLocale } from "./i18n-middleware.server";
import type { Namespace, Translations } from "./use-translation";

/**
 * A namespace a page's components translate with: whole, or only some of its keys (dotted paths to texts or to
 * subtrees) when the page needs few of them. Every text sent travels in the page's inline data, which counts
 * against the page's JavaScript budget (tests/bench/README.md: JavaScript per page).
 */
export type TranslationRequest = Namespace | { namespace: Namespace; keys: readonly string[] };

type Tree = Record<string, unknown>;
const isTree = (value: unknown): value is Tree => typeof value === "object" && value !== null;

/** The parts of `bundle` at `paths`, nested as in the bundle, so lookups by the same keys find them. */
export function pickKeys(bundle: unknown, paths: readonly string[]): Tree {
  const picked: Tree = {};
  for (const path of paths) {
    const segments = path.split(".");
    let source: unknown = bundle;
    for (const segment of segments) source = isTree(source) ? source[segment] : undefined;
    if (source === undefined) continue;
    let target = picked;
    for (const segment of segments.slice(0, -1)) {
      const next = isTree(target[segment]) ? target[segment] : {};
      target[segment] = next;
      target = next;
    }
    target[segments.at(-1) ?? path] = source;
  }
  return picked;
}

/**
 * The parts of each resource bundle already picked, by the key list that picked them: the lists are constants of
 * the pages' modules, so each page's subset is built once per language and then shared by every view (and the
 * lookups of use-translation.ts stay cached on it).
 */
const pickedSubsets = new WeakMap<object, WeakMap<readonly string[], Tree>>();

function pickedSubsetOf(bundle: Tree, paths: readonly string[]): Tree {
  let byPaths = pickedSubsets.get(bundle);
  if (!byPaths) {
    byPaths = new WeakMap();
    pickedSubsets.set(bundle, byPaths);
  }
  let picked = byPaths.get(paths);
  if (!picked) {
    picked = pickKeys(bundle, paths);
    byPaths.set(paths, picked);
  }
  return picked;
}

/** Each bundle or subset as JSON text, made once: see loadTranslations. */
const jsonTexts = new WeakMap<Tree, string>();

function jsonTextOf(tree: Tree): string {
  let text = jsonTexts.get(tree);
  if (text === undefined) {
    text = JSON.stringify(tree);
    jsonTexts.set(tree, text);
  }
  return text;
}

/**
 * The request language's resources for the given namespaces, for a loader to send to its components, each as the
 * JSON text of its texts (use-translation.ts reads either form). React Router serialises loader data value by value
 * on every view, and the frame's and a page's texts are most of those values: one string per namespace is one value,
 * made once per language and subset and shared by every view.
 */
export function loadTranslations(
  context: Readonly<RouterContextProvider>,
  requests: readonly TranslationRequest[],
): Translations {
  const locale = getLocale(context);
  const i18n = getInstance(context);
  return Object.fromEntries(
    requests.map((request) =>
      typeof request === "string"
        ? [request, jsonTextOf(i18n.getResourceBundle(locale, request) as Tree)]
        : [
            request.namespace,
            jsonTextOf(pickedSubsetOf(i18n.getResourceBundle(locale, request.namespace) as Tree, request.keys)),
          ],
    ),
  );
}
