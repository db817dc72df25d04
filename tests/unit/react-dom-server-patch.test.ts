import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Writable } from "node:stream";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";

// .patches/README.md: the production server build that serves pages (Node's) writes its HTML as text, encoded once
// per flush, instead of encoding every chunk into 4 kB views, and renders without its AsyncLocalStorage.
const require = createRequire(import.meta.url);
const buildsDirectory = path.join(path.dirname(require.resolve("react-dom/package.json")), "cjs");
const nodeBuildPath = path.join(buildsDirectory, "react-dom-server.node.production.js");
// React as the server builds require it (hooks work only through that instance). Under Vitest that is React's
// development build, whose createElement fails inside a production render: elements are made outside components.
const { Suspense, createElement: h, use } = require("react") as typeof import("react");
const nodeBuild = require(nodeBuildPath) as typeof import("react-dom/server.node");
// The edge build is unpatched: the same renderer writing through React's own TextEncoder writer.
const edgeBuild = require(
  path.join(buildsDirectory, "react-dom-server.edge.production.js"),
) as typeof import("react-dom/server.edge");

function renderWithNodeBuild(tree: ReactNode): Promise<{ html: string; writes: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const { pipe } = nodeBuild.renderToPipeableStream(tree, {
      onAllReady() {
        pipe(
          new Writable({
            write(chunk: Buffer, _encoding, callback) {
              chunks.push(chunk);
              callback();
            },
            final(callback) {
              resolve({ html: Buffer.concat(chunks).toString("utf8"), writes: chunks.length });
              callback();
            },
          }),
        );
      },
      onShellError: reject,
    });
  });
}

async function renderWithEdgeBuild(tree: ReactNode): Promise<string> {
  const stream = await edgeBuild.renderToReadableStream(tree);
  await stream.allReady;
  return new Response(stream).text();
}

const later = Promise.resolve(h("p", null, "読み込み後の本文 (loaded later)"));
function Later() {
  return use(later);
}

/** A document with what a page has: a head, attributes, multi-byte text, long text, lists, and a Suspense boundary. */
function documentTree(): ReactNode {
  const longText = "長い本文の一行。".repeat(400);
  const items = Array.from({ length: 300 }, (_, index) =>
    h("li", { key: index, className: `item item--${index % 3}`, "data-index": index }, `項目 ${index} & <${index}>`),
  );
  return h(
    "html",
    { lang: "ja" },
    h("head", null, h("meta", { charSet: "utf-8" }), h("title", null, "ページ")),
    h(
      "body",
      null,
      h("main", null, h("h1", null, "見出し"), h("p", null, longText), h("ul", null, items)),
      h(Suspense, { fallback: h("p", null, "…") }, h(Later)),
      h("script", { nonce: "n0nce", dangerouslySetInnerHTML: { __html: "window.x = 1;" } }),
    ),
  );
}

describe("the installed React DOM server (.patches/react-dom+19.3.1.patch)", () => {
  it("collects a render's text and encodes it once per flush in Node's production build", () => {
    const source = readFileSync(nodeBuildPath, "utf8");
    const writeChunk = source.slice(
      source.indexOf("function writeChunk("),
      source.indexOf("function writeChunkAndReturn("),
    );
    expect(writeChunk).toContain("pendingText += chunk");
    expect(writeChunk).not.toContain("encodeInto");
    expect(source).toMatch(/function stringToPrecomputedChunk\(content\) \{\s*return content;\s*\}/);
  });

  it("runs a render's first pass without its AsyncLocalStorage in Node's production build", () => {
    const source = readFileSync(nodeBuildPath, "utf8");
    const startWork = source.slice(source.indexOf("function startWork("), source.indexOf("function enqueueFlush("));
    expect(startWork).toContain("return performWork(request);");
    expect(startWork).not.toContain("requestStorage.run");
  });

  it("writes the same document, byte for byte, as React's own writer", async () => {
    const patched = await renderWithNodeBuild(documentTree());
    const unpatched = await renderWithEdgeBuild(documentTree());
    expect(patched.html).toContain("読み込み後の本文 (loaded later)");
    expect(patched.html).toContain("&lt;299&gt;");
    expect(patched.html.length).toBeGreaterThan(20_000);
    // Long enough to be written in several pieces, as a page over the flush size is.
    expect(patched.writes).toBeGreaterThan(1);
    // Not toBe: a failure would print two 30 kB documents.
    expect(patched.html === unpatched).toBe(true);
  });
});
